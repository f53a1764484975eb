fn main() {
    println!("vito");
}
