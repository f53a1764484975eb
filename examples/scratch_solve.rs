use vito::problem::{ProblemOverrides, load_problem};
use vito::sqp::{Settings, Solver};
use vito::transcription::VariationalNlp;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let prob = load_problem(std::path::Path::new(&path), &ProblemOverrides::default()).unwrap();
    let mut nlp = VariationalNlp::new(&prob, 2).unwrap();
    let solver = Solver::new(prob.solver.clone()).unwrap();
    let t = std::time::Instant::now();
    let res = solver.solve_with_log(&mut nlp, &mut std::io::stdout()).unwrap();
    println!("{:?} iters {} f {} time {:?} {:?}", res.status, res.iterations, res.objective, t.elapsed(), res.residuals);
}
