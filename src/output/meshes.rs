//! The mesh files of a robot's visuals, for the pictures: where a URDF's `filename` points
//! ([`locate`]), reading STL (binary and ASCII), OBJ and COLLADA files with `mesh-loader`
//! ([`read_mesh`]), and decimating them by vertex clustering ([`decimate`]) so that all the
//! meshes of one page stay within [`MAX_TRIANGLES`].
//!
//! The model layer only names the files (`model::MeshFile`); this is the one place that opens
//! them. A file that is missing or cannot be read is reported by the caller, which falls back to
//! the link's primitives or its stick figure.

use crate::spatial::Vec3;
use nalgebra::{Matrix3, SymmetricEigen};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Once;

/// Most triangles of all the meshes of one page together. Each is about 12 bytes of the page
/// (16-bit coordinates and indices, base64), so the meshes take at most 0.25 MB. The budget is
/// set by software WebGL (headless Chromium's), which opens such a page in about 0.45 s (one
/// with a few triangles in 0.35 s) and draws a frame of them in about 40 ms; a GPU takes a few.
pub(super) const MAX_TRIANGLES: usize = 20_000;

/// Fewest triangles a mesh is decimated to, however many others share the budget.
const MIN_TRIANGLES: usize = 300;

/// Directions along which the outline of a mesh keeps its extreme vertex.
const OUTLINE_DIRECTIONS: usize = 96;

/// Where the mesh files of a URDF are looked for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshPaths {
    /// The URDF's folder: relative names are relative to it, and `package://PKG/x` is looked
    /// for as `PKG/x` in it and in each folder above it.
    pub urdf_dir: Option<PathBuf>,
    /// More folders to look in: `package://PKG/x` as `DIR/PKG/x` or `DIR/x`, relative names as
    /// `DIR/name`.
    pub package_path: Vec<PathBuf>,
}

/// The file that the URDF's `filename` names, or why none was found (naming the places
/// searched).
pub(super) fn locate(filename: &str, paths: &MeshPaths) -> Result<PathBuf, String> {
    let urdf_dir = paths
        .urdf_dir
        .as_ref()
        .map(|d| d.canonicalize().unwrap_or_else(|_| d.clone()));
    let mut candidates: Vec<PathBuf> = Vec::new();
    let looked_in;
    if let Some(rest) = filename.strip_prefix("package://") {
        let (package, inner) = rest.split_once('/').unwrap_or((rest, ""));
        if package.is_empty() || inner.is_empty() {
            return Err("is not package://PACKAGE/PATH".into());
        }
        if let Some(dir) = &urdf_dir {
            candidates.extend(dir.ancestors().map(|a| a.join(package).join(inner)));
        }
        for dir in &paths.package_path {
            candidates.push(dir.join(package).join(inner));
            candidates.push(dir.join(inner));
        }
        looked_in =
            format!("package '{package}' not found beside the URDF or in a folder above it");
    } else if let Some(path) = filename.strip_prefix("file://") {
        candidates.push(PathBuf::from(path));
        looked_in = "no such file".to_string();
    } else if filename.contains("://") {
        return Err("is not a local file (only package:// and file:// are read)".into());
    } else {
        let path = Path::new(filename);
        if path.is_absolute() {
            candidates.push(path.to_path_buf());
        } else {
            candidates.extend(urdf_dir.iter().map(|d| d.join(path)));
            candidates.extend(paths.package_path.iter().map(|d| d.join(path)));
        }
        looked_in = "not found beside the URDF".to_string();
    }
    if let Some(found) = candidates.into_iter().find(|c| c.is_file()) {
        return Ok(found);
    }
    let searched: Vec<String> = paths
        .package_path
        .iter()
        .map(|d| d.display().to_string())
        .collect();
    Err(if searched.is_empty() || filename.starts_with("file://") {
        looked_in
    } else {
        format!("{looked_in} nor in --package-path {}", searched.join(", "))
    })
}

/// A triangle mesh: vertices (in the file's units) and counter-clockwise triangles.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct TriMesh {
    pub vertices: Vec<[f32; 3]>,
    pub triangles: Vec<[u32; 3]>,
}

impl TriMesh {
    /// The corners of the box that holds the vertices (`None` for no vertices).
    pub(super) fn bounds(&self) -> Option<([f32; 3], [f32; 3])> {
        let first = *self.vertices.first()?;
        Some(self.vertices.iter().fold((first, first), |(lo, hi), v| {
            (
                [lo[0].min(v[0]), lo[1].min(v[1]), lo[2].min(v[2])],
                [hi[0].max(v[0]), hi[1].max(v[1]), hi[2].max(v[2])],
            )
        }))
    }

    fn point(&self, i: u32) -> Vec3 {
        let v = self.vertices[i as usize];
        Vec3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2]))
    }

    /// The total area of the triangles.
    fn area(&self) -> f64 {
        self.triangles
            .iter()
            .map(|t| {
                let (a, b, c) = (self.point(t[0]), self.point(t[1]), self.point(t[2]));
                0.5 * (b - a).cross(&(c - a)).norm()
            })
            .sum()
    }

    /// The vertices extreme along [`OUTLINE_DIRECTIONS`] directions spread over the sphere: a
    /// few points whose convex hull is close to the mesh's, for silhouettes.
    pub(super) fn outline(&self) -> Vec<Vec3> {
        let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
        let mut picked: Vec<u32> = (0..OUTLINE_DIRECTIONS)
            .filter_map(|k| {
                let z = 1.0 - 2.0 * (k as f64 + 0.5) / OUTLINE_DIRECTIONS as f64;
                let r = (1.0 - z * z).sqrt();
                let a = golden * k as f64;
                let d = Vec3::new(r * a.cos(), r * a.sin(), z);
                (0..self.vertices.len() as u32)
                    .max_by(|&i, &j| self.point(i).dot(&d).total_cmp(&self.point(j).dot(&d)))
            })
            .collect();
        picked.sort_unstable();
        picked.dedup();
        picked.into_iter().map(|i| self.point(i)).collect()
    }
}

/// Reads the mesh file `path` (STL, binary or ASCII, OBJ or COLLADA, by its extension): all its
/// meshes as one, with equal vertices merged and degenerate triangles left out. COLLADA nodes
/// are placed by their transforms and `<unit>` scales the vertices (as `mesh-loader` 0.1.13
/// does it: not the nodes' translations); `<up_axis>` is not applied, nor are the files'
/// own materials and textures.
///
/// # Errors
/// Why the file cannot be drawn: unreadable, not a mesh format that is read, malformed, or
/// without triangles.
pub(super) fn read_mesh(path: &Path) -> Result<TriMesh, String> {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if !matches!(extension.as_deref(), Some("stl" | "obj" | "dae")) {
        return Err("is not an STL, OBJ or COLLADA (.dae) file".into());
    }
    let loaded = read_quietly(path)?.map_err(|e| e.to_string())?;
    let mut mesh = TriMesh::default();
    let mut index: HashMap<[u32; 3], u32> = HashMap::new();
    for part in &loaded.meshes {
        let ids: Vec<Option<u32>> = part
            .vertices
            .iter()
            .map(|v| {
                if !v.iter().all(|c| c.is_finite()) {
                    return None;
                }
                // +0.0 makes -0.0 and 0.0 one key.
                let v = [v[0] + 0.0, v[1] + 0.0, v[2] + 0.0];
                let next = mesh.vertices.len() as u32;
                let id = *index.entry(v.map(f32::to_bits)).or_insert(next);
                if id == next {
                    mesh.vertices.push(v);
                }
                Some(id)
            })
            .collect();
        for face in &part.faces {
            let corner = |k: usize| ids.get(face[k] as usize).copied().flatten();
            if let (Some(a), Some(b), Some(c)) = (corner(0), corner(1), corner(2)) {
                if a != b && b != c && a != c {
                    mesh.triangles.push([a, b, c]);
                }
            }
        }
    }
    if mesh.triangles.is_empty() {
        return Err("holds no triangles".into());
    }
    Ok(mesh)
}

/// The mesh file as `mesh-loader` reads it. The reader indexes some arrays of a malformed file
/// without checking (a COLLADA triangle naming a vertex that does not exist); such a panic is
/// caught and becomes an error, and a panic hook installed once keeps panics inside
/// `mesh-loader` off stderr (others still reach the hook that was there before).
fn read_quietly(path: &Path) -> Result<std::io::Result<mesh_loader::Scene>, String> {
    static QUIET: Once = Once::new();
    QUIET.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let in_reader = info
                .location()
                .is_some_and(|l| l.file().contains("mesh-loader"));
            if !in_reader {
                previous(info);
            }
        }));
    });
    std::panic::catch_unwind(|| mesh_loader::Loader::default().load(path)).map_err(|panic| {
        let why = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("the mesh reader gave up");
        format!("malformed ({why})")
    })
}

/// How many triangles each mesh keeps so that together they stay within `budget`: each mesh
/// a share of the budget proportional to its count, but all of its triangles when the share
/// would hold them and at least [`MIN_TRIANGLES`] (or all it has) when the share is smaller;
/// the others share what those leave.
pub(super) fn shares(counts: &[usize], budget: usize) -> Vec<usize> {
    let mut kept: Vec<Option<usize>> = vec![None; counts.len()];
    loop {
        let left = budget.saturating_sub(kept.iter().flatten().sum());
        let open: usize = (0..counts.len())
            .filter(|&i| kept[i].is_none())
            .map(|i| counts[i])
            .sum();
        let share = |n: usize| (left as f64 * n as f64 / open as f64).floor() as usize;
        let settled = |i: usize| {
            let s = share(counts[i]);
            kept[i].is_none() && (s >= counts[i] || s < MIN_TRIANGLES)
        };
        let fixed: Vec<usize> = (0..counts.len()).filter(|&i| settled(i)).collect();
        if fixed.is_empty() {
            return (0..counts.len())
                .map(|i| kept[i].unwrap_or_else(|| share(counts[i])))
                .collect();
        }
        for i in fixed {
            kept[i] = Some(counts[i].min(share(counts[i]).max(MIN_TRIANGLES)));
        }
    }
}

/// The mesh with at most `max_triangles` triangles: itself when it has no more, else its
/// vertices clustered on the coarsest cubic grid that keeps no more (searched by bisection of
/// the cell size), each cluster replaced by the point nearest to the planes of its triangles
/// (Lindstrom's quadric representative, so that edges and corners stay sharp) and the
/// triangles that collapse left out.
pub(super) fn decimate(mesh: &TriMesh, max_triangles: usize) -> TriMesh {
    if mesh.triangles.len() <= max_triangles {
        return mesh.clone();
    }
    let Some((lo, hi)) = mesh.bounds() else {
        return mesh.clone();
    };
    let extent = (0..3).map(|k| f64::from(hi[k] - lo[k])).fold(0.0, f64::max);
    if extent <= 0.0 {
        return mesh.clone();
    }
    // A surface of area A on cells of side h occupies about A/h² cells; meshed on their
    // representatives it has about 2A/h² triangles.
    let guess = (2.0 * mesh.area() / max_triangles as f64)
        .sqrt()
        .clamp(extent * 1e-4, extent);
    let (mut fine, mut coarse) = (guess, guess);
    let mut best = cluster(mesh, coarse);
    while best.triangles.len() > max_triangles && coarse < 4.0 * extent {
        fine = coarse;
        coarse *= 1.5;
        best = cluster(mesh, coarse);
    }
    if fine == coarse {
        for _ in 0..30 {
            fine /= 1.5;
            if cluster(mesh, fine).triangles.len() > max_triangles {
                break;
            }
            coarse = fine;
        }
        best = cluster(mesh, coarse);
    }
    for _ in 0..8 {
        let mid = (fine * coarse).sqrt();
        let m = cluster(mesh, mid);
        if m.triangles.len() <= max_triangles {
            coarse = mid;
            best = m;
        } else {
            fine = mid;
        }
    }
    best
}

/// A plane quadric `xᵀAx + 2bᵀx + c` summed over triangles, with the vertices it gathers.
#[derive(Clone, Copy)]
struct Quadric {
    a: Matrix3<f64>,
    b: Vec3,
    sum: Vec3,
    count: f64,
    lo: Vec3,
    hi: Vec3,
}

impl Quadric {
    fn new() -> Self {
        Self {
            a: Matrix3::zeros(),
            b: Vec3::zeros(),
            sum: Vec3::zeros(),
            count: 0.0,
            lo: Vec3::repeat(f64::INFINITY),
            hi: Vec3::repeat(f64::NEG_INFINITY),
        }
    }

    /// The point that minimizes the quadric, taken from the cluster's mean along the
    /// directions the planes do not fix, and kept within the cluster's box.
    fn representative(&self) -> Vec3 {
        let mean = self.sum / self.count.max(1.0);
        let eigen = SymmetricEigen::new(self.a);
        let largest = eigen.eigenvalues.amax();
        if largest <= 0.0 {
            return mean;
        }
        let residual = -(self.a * mean + self.b);
        let mut step = Vec3::zeros();
        for k in 0..3 {
            let lambda = eigen.eigenvalues[k];
            if lambda > 1e-3 * largest {
                let u = eigen.eigenvectors.column(k);
                step += u * (u.dot(&residual) / lambda);
            }
        }
        let x = mean + step;
        if x.iter()
            .zip(self.lo.iter().zip(&self.hi))
            .all(|(v, (l, h))| {
                let margin = 0.5 * (h - l);
                *v >= l - margin && *v <= h + margin
            })
        {
            x
        } else {
            mean
        }
    }
}

/// The mesh with its vertices merged per grid cell of side `h`.
fn cluster(mesh: &TriMesh, h: f64) -> TriMesh {
    let cell = |p: &Vec3| -> [i64; 3] { [0, 1, 2].map(|k| (p[k] / h).floor() as i64) };
    let mut cells: HashMap<[i64; 3], u32> = HashMap::new();
    let mut quadrics: Vec<Quadric> = Vec::new();
    let remap: Vec<u32> = (0..mesh.vertices.len() as u32)
        .map(|i| {
            let p = mesh.point(i);
            let next = quadrics.len() as u32;
            let id = *cells.entry(cell(&p)).or_insert(next);
            if id == next {
                quadrics.push(Quadric::new());
            }
            let q = &mut quadrics[id as usize];
            q.sum += p;
            q.count += 1.0;
            q.lo = q.lo.inf(&p);
            q.hi = q.hi.sup(&p);
            id
        })
        .collect();
    for t in &mesh.triangles {
        let (a, b, c) = (mesh.point(t[0]), mesh.point(t[1]), mesh.point(t[2]));
        let n = (b - a).cross(&(c - a));
        let twice_area = n.norm();
        if twice_area <= 0.0 {
            continue;
        }
        let unit = n / twice_area;
        let d = -unit.dot(&a);
        // Weighted by area, so that many small triangles count as one large one.
        let (a_plane, b_plane) = (unit * unit.transpose() * twice_area, unit * d * twice_area);
        for &v in t {
            let q = &mut quadrics[remap[v as usize] as usize];
            q.a += a_plane;
            q.b += b_plane;
        }
    }
    let vertices: Vec<[f32; 3]> = quadrics
        .iter()
        .map(|q| {
            let p = q.representative();
            [p.x as f32, p.y as f32, p.z as f32]
        })
        .collect();
    let mut seen: HashMap<[u32; 3], ()> = HashMap::new();
    let triangles = mesh
        .triangles
        .iter()
        .map(|t| t.map(|v| remap[v as usize]))
        .filter(|&[a, b, c]| a != b && b != c && a != c)
        .filter(|t| {
            let mut key = *t;
            key.sort_unstable();
            seen.insert(key, ()).is_none()
        })
        .collect();
    let mut out = TriMesh {
        vertices,
        triangles,
    };
    out.drop_unused_vertices();
    out
}

impl TriMesh {
    /// Renumbers the vertices so that only those of a triangle are kept.
    fn drop_unused_vertices(&mut self) {
        let mut renumber = vec![u32::MAX; self.vertices.len()];
        let mut kept = Vec::new();
        for t in &mut self.triangles {
            for v in t.iter_mut() {
                let slot = &mut renumber[*v as usize];
                if *slot == u32::MAX {
                    *slot = kept.len() as u32;
                    kept.push(self.vertices[*v as usize]);
                }
                *v = *slot;
            }
        }
        self.vertices = kept;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("vito-meshes-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The twelve triangles of the box `[0, a] × [0, b] × [0, c]`, outward.
    fn box_triangles(a: f32, b: f32, c: f32) -> Vec<[[f32; 3]; 3]> {
        let v = |i: usize| {
            [
                if i & 1 == 0 { 0.0 } else { a },
                if i & 2 == 0 { 0.0 } else { b },
                if i & 4 == 0 { 0.0 } else { c },
            ]
        };
        let quads = [
            [0, 2, 3, 1],
            [4, 5, 7, 6],
            [0, 1, 5, 4],
            [2, 6, 7, 3],
            [0, 4, 6, 2],
            [1, 3, 7, 5],
        ];
        quads
            .iter()
            .flat_map(|q| [[v(q[0]), v(q[1]), v(q[2])], [v(q[0]), v(q[2]), v(q[3])]])
            .collect()
    }

    fn binary_stl(triangles: &[[[f32; 3]; 3]]) -> Vec<u8> {
        let mut bytes = b"solid but binary: the header may say anything".to_vec();
        bytes.resize(80, b' ');
        bytes.extend((triangles.len() as u32).to_le_bytes());
        for t in triangles {
            bytes.extend([0f32; 3].iter().flat_map(|c| c.to_le_bytes()));
            bytes.extend(t.iter().flatten().flat_map(|c| c.to_le_bytes()));
            bytes.extend([0u8; 2]);
        }
        bytes
    }

    fn ascii_stl(triangles: &[[[f32; 3]; 3]]) -> String {
        let mut s = String::from("solid box\n");
        for t in triangles {
            s += "  facet normal 0 0 0\n    outer loop\n";
            for v in t {
                s += &format!("      vertex {} {} {}\n", v[0], v[1], v[2]);
            }
            s += "    endloop\n  endfacet\n";
        }
        s + "endsolid box\n"
    }

    /// A sphere of radius 1 made of `n × 2n` latitude-longitude quads.
    fn sphere(n: usize) -> TriMesh {
        let mut mesh = TriMesh::default();
        for i in 0..=n {
            for j in 0..2 * n {
                let (t, p) = (
                    std::f64::consts::PI * i as f64 / n as f64,
                    std::f64::consts::PI * j as f64 / n as f64,
                );
                mesh.vertices.push([
                    (t.sin() * p.cos()) as f32,
                    (t.sin() * p.sin()) as f32,
                    t.cos() as f32,
                ]);
            }
        }
        let id = |i: usize, j: usize| (i * 2 * n + j % (2 * n)) as u32;
        for i in 0..n {
            for j in 0..2 * n {
                let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
                if i > 0 {
                    mesh.triangles.push([a, b, d]);
                }
                if i + 1 < n {
                    mesh.triangles.push([b, c, d]);
                }
            }
        }
        mesh
    }

    #[test]
    fn binary_and_ascii_stl_give_the_box() {
        let dir = scratch("stl");
        let triangles = box_triangles(0.1, 0.2, 0.3);
        std::fs::write(dir.join("b.stl"), binary_stl(&triangles)).unwrap();
        std::fs::write(dir.join("a.STL"), ascii_stl(&triangles)).unwrap();
        for name in ["b.stl", "a.STL"] {
            let mesh = read_mesh(&dir.join(name)).unwrap();
            assert_eq!(mesh.triangles.len(), 12, "{name}");
            assert_eq!(mesh.vertices.len(), 8, "{name}: corners merged");
            let (lo, hi) = mesh.bounds().unwrap();
            assert_eq!(lo, [0.0; 3], "{name}");
            assert_eq!(hi, [0.1, 0.2, 0.3], "{name}");
            assert!((mesh.area() - 2.0 * (0.02 + 0.03 + 0.06)).abs() < 1e-6);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn obj_polygons_are_triangulated() {
        let dir = scratch("obj");
        let obj = "# a unit square pyramid\nmtllib missing.mtl\n\
                   v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0.5 0.5 2\n\
                   f 4 3 2 1\nf 1 2 5\nf 2 3 5\nf 3 4 5\nf 4 1 5\n";
        std::fs::write(dir.join("p.obj"), obj).unwrap();
        let mesh = read_mesh(&dir.join("p.obj")).unwrap();
        assert_eq!((mesh.vertices.len(), mesh.triangles.len()), (5, 6));
        assert_eq!(mesh.bounds().unwrap(), ([0.0; 3], [1.0, 1.0, 2.0]));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A COLLADA document of one triangle (0, 0, 0), (100, 0, 0), (0, 200, 0) in a node with
    /// `transform` (its elements), in units of `meter` metres.
    fn collada(meter: f64, transform: &str) -> String {
        format!(
            r##"<?xml version="1.0"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit meter="{meter}"/><up_axis>Z_UP</up_axis></asset>
  <library_geometries><geometry id="tri"><mesh>
    <source id="p"><float_array id="pa" count="9">0 0 0 100 0 0 0 200 0</float_array>
      <technique_common><accessor source="#pa" count="3" stride="3">
        <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
      </accessor></technique_common></source>
    <vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
    <triangles count="1"><input semantic="VERTEX" source="#v" offset="0"/><p>0 1 2</p></triangles>
  </mesh></geometry></library_geometries>
  <library_visual_scenes><visual_scene id="s"><node id="n">
    {transform}<instance_geometry url="#tri"/>
  </node></visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#s"/></scene>
</COLLADA>"##
        )
    }

    #[test]
    fn collada_meshes_take_the_unit_and_node_transforms() {
        let dir = scratch("dae");
        let near = |a: [f32; 3], b: [f32; 3]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5);
        for (name, text, lo, hi) in [
            ("mm.dae", collada(0.001, ""), [0.0; 3], [0.1, 0.2, 0.0]),
            (
                "moved.dae",
                collada(1.0, "<translate>1 2 3</translate><rotate>0 0 1 90</rotate>"),
                [-199.0, 2.0, 3.0],
                [1.0, 102.0, 3.0],
            ),
        ] {
            std::fs::write(dir.join(name), text).unwrap();
            let mesh = read_mesh(&dir.join(name)).unwrap();
            assert_eq!(mesh.triangles.len(), 1, "{name}");
            let (got_lo, got_hi) = mesh.bounds().unwrap();
            assert!(
                near(got_lo, lo) && near(got_hi, hi),
                "{name}: {got_lo:?} {got_hi:?}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn bad_files_say_why() {
        let dir = scratch("bad");
        std::fs::write(dir.join("empty.stl"), b"").unwrap();
        std::fs::write(dir.join("short.stl"), [0u8; 40]).unwrap();
        let mut truncated = binary_stl(&box_triangles(1.0, 1.0, 1.0));
        truncated.truncate(300);
        std::fs::write(dir.join("truncated.stl"), truncated).unwrap();
        std::fs::write(dir.join("x.ply"), b"ply\nformat ascii 1.0\n").unwrap();
        std::fs::write(dir.join("bad.dae"), b"<COLLADA><library_geometries>").unwrap();
        std::fs::write(dir.join("lines.obj"), b"v 0 0 0\nv 1 0 0\nl 1 2\n").unwrap();
        let out_of_range = collada(1.0, "").replace("<p>0 1 2</p>", "<p>0 1 7</p>");
        std::fs::write(dir.join("index.dae"), out_of_range).unwrap();
        std::fs::write(
            dir.join("face.obj"),
            b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n",
        )
        .unwrap();
        for name in [
            "empty.stl",
            "short.stl",
            "truncated.stl",
            "x.ply",
            "bad.dae",
            "lines.obj",
            "index.dae",
            "face.obj",
            "absent.stl",
        ] {
            let err = read_mesh(&dir.join(name)).unwrap_err();
            let says = match name {
                "x.ply" => "is not an STL, OBJ or COLLADA (.dae) file",
                "lines.obj" => "holds no triangles",
                "index.dae" => "malformed (index out of bounds",
                "absent.stl" => "No such file",
                _ => "",
            };
            assert!(!err.is_empty() && err.contains(says), "{name}: {err}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn files_are_found_by_package_relative_and_file_names() {
        let root = scratch("locate");
        let urdf_dir = root.join("ws/src/arm_description/urdf");
        let meshes = root.join("ws/src/arm_description/meshes");
        let elsewhere = root.join("elsewhere/arm_meshes");
        for d in [&urdf_dir, &meshes, &elsewhere] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(meshes.join("a.stl"), b"x").unwrap();
        std::fs::write(urdf_dir.join("b.obj"), b"x").unwrap();
        std::fs::write(elsewhere.join("c.stl"), b"x").unwrap();
        let paths = MeshPaths {
            urdf_dir: Some(urdf_dir.clone()),
            package_path: Vec::new(),
        };
        let found = |name: &str, p: &MeshPaths| locate(name, p).map(|f| f.canonicalize().unwrap());
        let a = meshes.join("a.stl").canonicalize().unwrap();
        assert_eq!(
            found("package://arm_description/meshes/a.stl", &paths),
            Ok(a.clone())
        );
        assert_eq!(found("../meshes/a.stl", &paths), Ok(a.clone()));
        assert_eq!(
            found(&format!("file://{}", a.display()), &paths),
            Ok(a.clone())
        );
        assert_eq!(
            found("b.obj", &paths),
            Ok(urdf_dir.join("b.obj").canonicalize().unwrap())
        );
        let err = locate("package://other/c.stl", &paths).unwrap_err();
        assert_eq!(
            err,
            "package 'other' not found beside the URDF or in a folder above it"
        );
        assert!(locate("http://example.org/c.stl", &paths).is_err());
        assert!(locate("package://nothing", &paths).is_err());
        let with = MeshPaths {
            package_path: vec![elsewhere.clone(), root.join("elsewhere")],
            ..paths
        };
        let c = elsewhere.join("c.stl").canonicalize().unwrap();
        assert_eq!(found("package://other/c.stl", &with), Ok(c.clone()));
        assert_eq!(found("package://arm_meshes/c.stl", &with), Ok(c));
        let err = locate("package://other/d.stl", &with).unwrap_err();
        assert!(err.contains(&elsewhere.display().to_string()), "{err}");
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn decimation_keeps_the_shape_within_the_budget() {
        let mesh = sphere(60);
        assert_eq!(mesh.triangles.len(), 2 * 60 * 120 - 2 * 120);
        assert_eq!(decimate(&mesh, 1_000_000), mesh, "within budget: untouched");
        for budget in [4000, 1000, 300] {
            let small = decimate(&mesh, budget);
            let n = small.triangles.len();
            assert!(n <= budget && n >= budget / 3, "{budget}: {n} triangles");
            let (lo, hi) = small.bounds().unwrap();
            for k in 0..3 {
                assert!(lo[k] > -1.05 && lo[k] < -0.9, "{budget}: {lo:?}");
                assert!(hi[k] < 1.05 && hi[k] > 0.9, "{budget}: {hi:?}");
            }
            for v in &small.vertices {
                let r = v.iter().map(|c| c * c).sum::<f32>().sqrt();
                assert!(
                    (0.85..=1.05).contains(&r),
                    "{budget}: a vertex at radius {r}"
                );
            }
            let area = small.area();
            let want = 4.0 * std::f64::consts::PI;
            assert!((area - want).abs() < 0.12 * want, "{budget}: area {area}");
            assert!(
                small
                    .triangles
                    .iter()
                    .flatten()
                    .all(|&v| (v as usize) < small.vertices.len())
            );
        }
    }

    #[test]
    fn a_decimated_box_keeps_its_corners() {
        // A box of 0.1 × 0.2 × 0.3 cut into many small triangles: the quadric representative
        // puts the clusters at the corners on the corners.
        let mut mesh = TriMesh::default();
        let n = 40;
        for t in box_triangles(0.1, 0.2, 0.3) {
            let [a, b, c] = t.map(|v| Vec3::new(v[0].into(), v[1].into(), v[2].into()));
            for i in 0..n {
                for j in 0..n - i {
                    let mut at = |i: usize, j: usize| {
                        let p =
                            a + (b - a) * (i as f64 / n as f64) + (c - a) * (j as f64 / n as f64);
                        let id = mesh.vertices.len() as u32;
                        mesh.vertices.push([p.x as f32, p.y as f32, p.z as f32]);
                        id
                    };
                    let (p, q, r) = (at(i, j), at(i + 1, j), at(i, j + 1));
                    mesh.triangles.push([p, q, r]);
                }
            }
        }
        let small = decimate(&mesh, 500);
        assert!(small.triangles.len() <= 500);
        let (lo, hi) = small.bounds().unwrap();
        for (got, want) in lo.iter().chain(&hi).zip([0.0, 0.0, 0.0, 0.1, 0.2, 0.3]) {
            assert!((got - want).abs() < 1e-4, "{lo:?} {hi:?}");
        }
    }

    #[test]
    fn shares_split_the_budget_by_size() {
        assert_eq!(shares(&[10, 20], 100), vec![10, 20]);
        assert_eq!(shares(&[3000, 1000, 100], 2000), vec![1425, 475, 100]);
        assert_eq!(shares(&[100_000, 1000], 10_000), vec![9700, 300]);
        assert_eq!(shares(&[50, 50_000, 5000], 2000), vec![50, 1650, 300]);
        assert!(shares(&[], 10).is_empty());
    }

    #[test]
    fn the_outline_holds_the_extremes() {
        let mesh = sphere(20);
        let outline = mesh.outline();
        assert!(outline.len() > 40 && outline.len() <= OUTLINE_DIRECTIONS);
        for k in 0..3 {
            let top = outline.iter().map(|p| p[k]).fold(f64::MIN, f64::max);
            assert!(top > 0.97, "{k}: {top}");
        }
    }
}
