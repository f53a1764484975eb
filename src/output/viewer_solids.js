// vito's renderer of solids, for pages whose robot has meshes: three.js (WebGL, depth-tested)
// draws the meshes of scene.mesh_shapes, the primitive shapes and the terrain boxes into a
// canvas of its own, shaded as viewer.js shades (0.55 + 0.45 n·l of the colour, the light fixed
// to the camera), and viewer.js copies that picture into its 2-D canvas over the ground and
// under the markers (bones, joints, contact points, forces, targets, labels). This file and
// three.js (src/output/vendor/three.min.js, which defines THREE) are put into the page only
// when it has meshes; viewer.js draws everything itself when they are absent or when the
// browser has no WebGL 2.
(function () {
  'use strict';

  // Decodes base64 into bytes.
  function bytes(text) {
    var raw = atob(text), out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { out[i] = raw.charCodeAt(i); }
    return out;
  }

  // The geometry of a mesh of the scene: 16-bit coordinates q give lo + q * step, and the
  // triangles index the vertices with 16-bit (32-bit when wide) little-endian integers.
  function meshGeometry(m) {
    var q = new DataView(bytes(m.vertices).buffer);
    var n = q.byteLength / 2, positions = new Float32Array(n);
    for (var i = 0; i < n; i++) {
      var k = i % 3;
      positions[i] = m.lo[k] + q.getUint16(2 * i, true) * m.step[k];
    }
    var t = new DataView(bytes(m.triangles).buffer);
    var size = m.wide ? 4 : 2, count = t.byteLength / size;
    var index = m.wide ? new Uint32Array(count) : new Uint16Array(count);
    for (var j = 0; j < count; j++) {
      index[j] = m.wide ? t.getUint32(4 * j, true) : t.getUint16(2 * j, true);
    }
    var g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.BufferAttribute(positions, 3));
    g.setIndex(new THREE.BufferAttribute(index, 1));
    return g;
  }

  // A primitive shape of the scene (cylinders and capsules along z, as in viewer.rs).
  function primitiveGeometry(s) {
    var d = s.size, g;
    if (s.kind === 'box') { return new THREE.BoxGeometry(d[0], d[1], d[2]); }
    if (s.kind === 'sphere') { return new THREE.SphereGeometry(d[0], 24, 16); }
    if (s.kind === 'cylinder') {
      g = new THREE.CylinderGeometry(d[0], d[0], d[1], 24);
    } else {
      g = new THREE.CapsuleGeometry(d[0], d[1], 6, 16);
    }
    g.rotateX(Math.PI / 2);
    return g;
  }

  // The light's direction in the camera's frame (x right, y up, z back): viewer.js's
  // -f + 0.6 u - 0.35 r, normalised.
  var LIGHT = [-0.35, 0.6, 1].map(function (c) { return c / Math.sqrt(0.35 * 0.35 + 0.36 + 1); });

  var VERTEX_SHADER = [
    'varying vec3 vPosition;',
    'varying vec3 vNormal;',
    'void main() {',
    '  vec4 p = modelViewMatrix * vec4(position, 1.0);',
    '  vPosition = p.xyz;',
    '  vNormal = normalMatrix * normal;',
    '  gl_Position = projectionMatrix * p;',
    '}'
  ].join('\n');

  // Flat shading takes each triangle's normal from the derivatives of the position (meshes
  // need no normals, and a decimated mesh's would smear its edges); smooth shading the
  // interpolated vertex normal. Either is turned towards the camera, so that a mesh's winding
  // does not matter.
  var FRAGMENT_SHADER = [
    'uniform vec3 color;',
    'uniform float opacity;',
    'uniform vec3 light;',
    'varying vec3 vPosition;',
    'varying vec3 vNormal;',
    'void main() {',
    '#ifdef FLAT',
    '  vec3 n = normalize(cross(dFdx(vPosition), dFdy(vPosition)));',
    '#else',
    '  vec3 n = normalize(vNormal);',
    '#endif',
    '  if (dot(n, vPosition) > 0.0) { n = -n; }',
    '  gl_FragColor = vec4(color * (0.55 + 0.45 * max(dot(n, light), 0.0)), opacity);',
    '}'
  ].join('\n');

  // Places a three.js object at pose [x, y, z, w, i, j, k].
  function place(object, pose) {
    object.position.set(pose[0], pose[1], pose[2]);
    object.quaternion.set(pose[4], pose[5], pose[6], pose[3]);
  }

  // A WebGL 2 context (with multisampling or not) on a canvas of its own, and whether it
  // renders in software (SwiftShader, llvmpipe); null without WebGL 2.
  function webgl(antialias) {
    var canvas = document.createElement('canvas');
    var gl = window.WebGL2RenderingContext && canvas.getContext('webgl2', {
      alpha: true, antialias: antialias, depth: true, stencil: false, premultipliedAlpha: true
    });
    if (!gl) { return null; }
    var name = String(gl.getParameter(gl.RENDERER));
    var info = name === 'WebKit WebGL' && gl.getExtension('WEBGL_debug_renderer_info');
    if (info) { name = String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)); }
    return { canvas: canvas, gl: gl, software: /swiftshader|llvmpipe|softpipe|software/i.test(name) };
  }

  // The renderer of the solids of `scene`, or null without WebGL 2. `color(rgb, run)` is the
  // colour viewer.js gives rgb in run `run` (compared solutions are tinted); `sideColor(side)`
  // the colour of a side's solids; `faded` the opacity of the runs after the first;
  // `across()` the y range of the ground drawn, which terrain boxes without one span.
  window.vitoSolids = function (scene, color, sideColor, faded, across) {
    // Multisampling is nearly free on a GPU; a software renderer (headless browsers) takes
    // twice as long to open the page with it.
    var context = webgl(false);
    if (!context) { return null; }
    if (!context.software) {
      var lose = context.gl.getExtension('WEBGL_lose_context');
      if (lose) { lose.loseContext(); }
      context = webgl(true) || webgl(false);
    }
    var canvas = context.canvas;
    var renderer = new THREE.WebGLRenderer({ canvas: canvas, context: context.gl, alpha: true });
    renderer.setPixelRatio(1);
    renderer.setClearColor(0x000000, 0);
    var world = new THREE.Scene();
    var camera = new THREE.PerspectiveCamera(35, 1, 0.01, 100);

    // Colours are used as they are (the page's sRGB values, shaded like viewer.js's).
    var materials = {};
    function material(rgb, opacity, flat) {
      var key = rgb.join(',') + '/' + opacity + '/' + flat;
      if (!materials[key]) {
        materials[key] = new THREE.ShaderMaterial({
          vertexShader: VERTEX_SHADER, fragmentShader: FRAGMENT_SHADER,
          defines: flat ? { FLAT: '' } : {},
          uniforms: {
            color: { value: rgb.map(function (c) { return c / 255; }) },
            opacity: { value: opacity },
            light: { value: LIGHT }
          },
          side: flat ? THREE.DoubleSide : THREE.FrontSide, transparent: opacity < 1
        });
      }
      return materials[key];
    }
    function hexRgb(hex) {
      var n = parseInt(hex.slice(1), 16);
      return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
    }

    var meshGeometries = scene.meshes.map(meshGeometry);
    var primitiveGeometries = scene.shapes.map(primitiveGeometry);
    var triangles = meshGeometries.reduce(function (sum, g) {
      return sum + g.index.count / 3;
    }, 0);

    // Per run: a group (moved aside in the side-by-side comparison) holding a group per body
    // whose transform is set at every frame; shapes on the world hang from the run's group.
    var runs = scene.runs.map(function (run, r) {
      var group = new THREE.Group(), bodies = [];
      for (var b = 0; b < scene.bodies; b++) {
        var body = new THREE.Group();
        body.matrixAutoUpdate = false;
        bodies.push(body);
        group.add(body);
      }
      var opacity = r === 0 ? 1 : faded;
      function add(object, s) {
        place(object, s.pose);
        (s.body < 0 ? group : bodies[s.body]).add(object);
      }
      scene.shapes.forEach(function (s, i) {
        add(new THREE.Mesh(primitiveGeometries[i],
          material(color(sideColor(s.side), r), opacity, false)), s);
      });
      scene.mesh_shapes.forEach(function (s) {
        var rgb = s.color ? hexRgb(s.color) : sideColor(s.side);
        var object = new THREE.Mesh(meshGeometries[s.mesh],
          material(color(rgb, r), Math.min(opacity, s.opacity), true));
        object.scale.set(s.scale[0], s.scale[1], s.scale[2]);
        add(object, s);
      });
      world.add(group);
      return { group: group, bodies: bodies };
    });

    // Terrain boxes stand on the ground (as drawGround in viewer.js places them).
    var terrain = scene.terrain;
    if (terrain) {
      (terrain.boxes || []).forEach(function (b) {
        var y = b.y || across(), h = b.top - terrain.ground;
        var box = new THREE.Mesh(new THREE.BoxGeometry(b.x[1] - b.x[0], y[1] - y[0], h),
          material([196, 184, 160], 1, false));
        box.position.set(0.5 * (b.x[0] + b.x[1]), 0.5 * (y[0] + y[1]), terrain.ground + 0.5 * h);
        world.add(box);
      });
    }

    // Draws the solids as seen from `view` (viewer.js's camera: eye, forward f, up u, canvas
    // size in pixels, field of view in radians, distance to the target, scene size) with the
    // body poses of each run (`{R, p}` per body, or null for a run not shown) and their offsets.
    function draw(view, poses, offsets) {
      if (canvas.width !== view.width || canvas.height !== view.height) {
        renderer.setSize(view.width, view.height, false);
      }
      camera.fov = view.fov * 180 / Math.PI;
      camera.aspect = view.width / view.height;
      camera.near = Math.max(1e-4, 0.01 * view.distance);
      camera.far = 100 * view.distance + 10 * view.size;
      camera.updateProjectionMatrix();
      camera.position.set(view.eye[0], view.eye[1], view.eye[2]);
      camera.up.set(view.u[0], view.u[1], view.u[2]);
      camera.lookAt(view.eye[0] + view.f[0], view.eye[1] + view.f[1], view.eye[2] + view.f[2]);
      runs.forEach(function (run, r) {
        var shown = poses[r];
        run.group.visible = !!shown;
        if (!shown) { return; }
        var o = offsets[r] || [0, 0, 0];
        run.group.position.set(o[0], o[1], o[2]);
        run.bodies.forEach(function (body, b) {
          var R = shown[b].R, p = shown[b].p;
          body.matrix.set(R[0], R[1], R[2], p[0], R[3], R[4], R[5], p[1],
            R[6], R[7], R[8], p[2], 0, 0, 0, 1);
          body.matrixWorldNeedsUpdate = true;
        });
      });
      renderer.render(world, camera);
      return canvas;
    }

    return { draw: draw, triangles: triangles };
  };
})();
