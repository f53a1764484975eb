//! `vito view RESULT_DIR`: draws `view.html` (and with `--raster` `animation.gif`) again from a
//! result directory's `report.json` and `trajectory.csv` (so older results get them too).

use super::RasterArg;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use vito::model::BaseKind;
use vito::output::{ViewOptions, write_views};

#[derive(Args, Debug)]
pub struct ViewArgs {
    /// A directory written by `vito solve`, `vito simulate` or `vito compare`.
    dir: PathBuf,
    /// The robot's URDF, for results whose report does not name it.
    #[arg(long)]
    robot: Option<PathBuf>,
    /// The robot's base: fixed, planar or floating (default: the report's, else fixed).
    #[arg(long)]
    base: Option<BaseKind>,
    /// Where to write the files (default: the result directory).
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// A folder that holds the ROS packages of the robot's meshes (`package://PKG/x` is looked
    /// for as DIR/PKG/x and DIR/x, after the URDF's folder and those above it); repeatable.
    #[arg(long = "package-path", value_name = "DIR")]
    package_path: Vec<PathBuf>,
    #[command(flatten)]
    images: RasterArg,
}

pub fn run(args: ViewArgs) -> anyhow::Result<ExitCode> {
    let files = write_views(
        &args.dir,
        None,
        &ViewOptions {
            robot_file: args.robot,
            base: args.base,
            output: args.output,
            formats: args.images.formats(),
            package_path: args.package_path,
        },
    )?;
    for f in files {
        println!("{}", f.display());
    }
    Ok(ExitCode::SUCCESS)
}
