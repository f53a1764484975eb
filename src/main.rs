//! The `vito` command line: parses arguments and hands each subcommand to [`cli`].

mod cli;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", cli::error_message(&e));
            std::process::ExitCode::FAILURE
        }
    }
}
