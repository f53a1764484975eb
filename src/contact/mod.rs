//! Contact geometry: the terrain and its signed distance, the contact frame and the friction
//! cone's directions. Nothing here knows about optimization; the transcription's contact term
//! and the simulator build their complementarity conditions from these pieces.

mod distance;
mod friction;
mod terrain;

pub use distance::Distance;
pub use friction::ContactFrame;
pub use terrain::{DEFAULT_EDGE_RADIUS, Gap, Terrain, TerrainBox};
