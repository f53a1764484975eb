//! Contact: the terrain and its signed distance, the contact frame and the friction cone's
//! directions, and the complementarity conditions of frictional contact at one sample
//! (`conditions.rs`), which the transcriptions' contact term and the simulator share; the
//! contact wrench cone of a flat rectangular sole (`wrench_cone.rs`). Nothing here knows about
//! optimization.

mod conditions;
mod distance;
mod friction;
mod terrain;
mod wrench_cone;

pub use conditions::{
    CONE, ContactModel, ContactSample, ContactSite, DEFAULT_REACH, GAP, NORMAL, SLIDING,
};
pub use distance::Distance;
pub use friction::ContactFrame;
pub use terrain::{DEFAULT_EDGE_RADIUS, Gap, Terrain, TerrainBox};
pub use wrench_cone::{FACES, SoleRectangle, WrenchCone};
