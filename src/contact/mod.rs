//! Contact: the terrain and its signed distance, the contact frame and the friction cone's
//! directions, and the complementarity conditions of frictional contact at one sample
//! (`conditions.rs`), which the transcriptions' contact term and the simulator share. Nothing
//! here knows about optimization.

mod conditions;
mod distance;
mod friction;
mod terrain;

pub use conditions::{CONE, ContactModel, ContactSample, ContactSite, GAP, NORMAL, SLIDING};
pub use distance::Distance;
pub use friction::ContactFrame;
pub use terrain::{DEFAULT_EDGE_RADIUS, Gap, Terrain, TerrainBox};
