// vito's 3-D viewer: draws the scene that src/output/viewer.rs embeds as JSON on a 2-D canvas
// with a perspective camera (painter's algorithm: everything is sorted by distance and drawn
// farthest first). The scene holds the robot's shapes and stick figure as points fixed on its
// bodies, and per shown time the world pose of every body as [x, y, z, w, i, j, k]; this file
// only moves rigid bodies (no kinematics). Opened with #selftest it checks itself and writes
// its verdict as JSON into the element #vito-selftest; #t=SECONDS and #view=side|front|top|3d
// set the starting time and camera (and keep it paused). In a page whose robot has meshes,
// viewer_solids.js (with three.js) draws the solids with WebGL and this file copies its picture
// in between the ground and the markers (`solids` below).
(function () {
  'use strict';

  var options = {};
  location.hash.replace(/^#/, '').split('&').forEach(function (part) {
    var kv = part.split('=');
    if (kv[0]) { options[kv[0]] = kv.length > 1 ? decodeURIComponent(kv[1]) : true; }
  });
  var scene = JSON.parse(document.getElementById('vito-scene').textContent);
  var canvas = document.getElementById('view');
  // The self-test reads the picture back; only then is a canvas kept for reading asked for.
  var ctx = canvas.getContext('2d', { willReadFrequently: !!options.selftest });
  var slider = document.getElementById('time');

  var BACKGROUND = [244, 245, 247];
  var FOV = 35 * Math.PI / 180;
  var NEAR = 1e-3;
  var FADED_ALPHA = 0.45;
  var FORCE_COLOR = '#941a78';
  var TARGET_COLOR = '#2ca02c';
  var CONTACT_COLOR = '#d62728';
  var TRACE_COLORS = ['#7b68ee', '#20b2aa', '#cd853f', '#c71585', '#4682b4', '#9acd32'];

  // ---------------------------------------------------------------------------------------
  // Vectors and rigid transforms.

  function add(a, b) { return [a[0] + b[0], a[1] + b[1], a[2] + b[2]]; }
  function sub(a, b) { return [a[0] - b[0], a[1] - b[1], a[2] - b[2]]; }
  function scale(a, s) { return [a[0] * s, a[1] * s, a[2] * s]; }
  function dot(a, b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
  function cross(a, b) {
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  }
  function norm(a) { return Math.sqrt(dot(a, a)); }
  function unit(a) { var n = norm(a) || 1; return scale(a, 1 / n); }

  // Rotation matrix (row-major) of the unit quaternion w + xi + yj + zk.
  function quatMatrix(w, x, y, z) {
    var n = Math.sqrt(w * w + x * x + y * y + z * z) || 1;
    w /= n; x /= n; y /= n; z /= n;
    return [
      1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
      2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
      2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)
    ];
  }
  function rotate(R, v) {
    return [
      R[0] * v[0] + R[1] * v[1] + R[2] * v[2],
      R[3] * v[0] + R[4] * v[1] + R[5] * v[2],
      R[6] * v[0] + R[7] * v[1] + R[8] * v[2]
    ];
  }
  function matmul(A, B) {
    var C = new Array(9);
    for (var i = 0; i < 3; i++) {
      for (var j = 0; j < 3; j++) {
        C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
      }
    }
    return C;
  }
  function transform(pose, v) { return add(rotate(pose.R, v), pose.p); }
  function compose(a, b) { return { R: matmul(a.R, b.R), p: transform(a, b.p) }; }
  function poseOf(a) { return { R: quatMatrix(a[3], a[4], a[5], a[6]), p: [a[0], a[1], a[2]] }; }

  // ---------------------------------------------------------------------------------------
  // The motion: body poses at any time, interpolated between shown times.

  var runs = scene.runs;
  var nb = scene.bodies;
  var t0 = Infinity, t1 = -Infinity;
  runs.forEach(function (r) {
    if (r.times.length) {
      t0 = Math.min(t0, r.times[0]);
      t1 = Math.max(t1, r.times[r.times.length - 1]);
    }
  });
  if (!isFinite(t0)) { t0 = 0; t1 = 0; }
  var shapePoses = scene.shapes.map(function (s) { return poseOf(s.pose); });

  // The index of the last shown time at or before t.
  function frameAt(run, t) {
    var times = run.times, lo = 0, hi = times.length - 1;
    if (hi < 0) { return -1; }
    if (t <= times[0]) { return 0; }
    if (t >= times[hi]) { return hi; }
    while (hi - lo > 1) {
      var mid = (lo + hi) >> 1;
      if (times[mid] <= t) { lo = mid; } else { hi = mid; }
    }
    return lo;
  }

  function posesAtFrame(run, k) {
    var row = run.poses[k], out = new Array(nb);
    for (var b = 0; b < nb; b++) { out[b] = poseOf(row.slice(7 * b, 7 * b + 7)); }
    return out;
  }

  // World poses of the bodies of run at time t: positions and quaternions interpolated
  // linearly (quaternions of neighbouring times lie on one side, see viewer.rs).
  function posesAt(run, t) {
    var k = frameAt(run, t);
    if (k < 0) { return null; }
    var times = run.times;
    if (k + 1 >= times.length || t <= times[k]) { return posesAtFrame(run, k); }
    var a = Math.min(1, (t - times[k]) / (times[k + 1] - times[k]));
    var r0 = run.poses[k], r1 = run.poses[k + 1], out = new Array(nb);
    for (var b = 0; b < nb; b++) {
      var v = new Array(7);
      for (var c = 0; c < 7; c++) { v[c] = r0[7 * b + c] * (1 - a) + r1[7 * b + c] * a; }
      out[b] = poseOf(v);
    }
    return out;
  }

  function forcesAt(run, t) {
    var k = frameAt(run, t);
    return run.forces.map(function (f) { return { point: f.point, value: f.values[k] }; });
  }

  // The world position of an anchor [body, x, y, z] (body -1: the world).
  function at(poses, a, offset) {
    var p = a[0] < 0 ? [a[1], a[2], a[3]] : transform(poses[a[0]], [a[1], a[2], a[3]]);
    return offset ? add(p, offset) : p;
  }

  // ---------------------------------------------------------------------------------------
  // Camera.

  var lo = scene.bounds[0], hi = scene.bounds[1];
  var centre = scale(add(lo, hi), 0.5);
  var size = Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], 0.1);
  var PRESETS = {
    '3d': [-60, 20], side: [-90, 0], front: [0, 0], top: [-90, 89.5]
  };
  var cam = { target: centre.slice(), dist: 1, azim: 0, elev: 0 };
  var view = {};

  function fit() {
    cam.target = centre.slice();
    var radius = 0.5 * norm(sub(hi, lo)) + 0.02 * size;
    var aspect = (canvas.width / canvas.height) || 1;
    var half = Math.min(FOV / 2, Math.atan(Math.tan(FOV / 2) * aspect));
    cam.dist = Math.max(radius / Math.sin(half), 0.2);
  }
  function preset(name) {
    var p = PRESETS[name] || PRESETS['3d'];
    cam.azim = p[0] * Math.PI / 180;
    cam.elev = p[1] * Math.PI / 180;
    fit();
  }
  function setupView() {
    var ce = Math.cos(cam.elev);
    var dir = [ce * Math.cos(cam.azim), ce * Math.sin(cam.azim), Math.sin(cam.elev)];
    view.eye = add(cam.target, scale(dir, cam.dist));
    view.f = scale(dir, -1);
    view.r = unit(cross(view.f, [0, 0, 1]));
    view.u = cross(view.r, view.f);
    view.F = 0.5 * canvas.height / Math.tan(FOV / 2);
    view.cx = 0.5 * canvas.width;
    view.cy = 0.5 * canvas.height;
    view.light = unit(add(add(scale(view.f, -1), scale(view.u, 0.6)), scale(view.r, -0.35)));
  }
  // Screen position and depth of a world point, or null behind the camera.
  function project(p) {
    var d = sub(p, view.eye), z = dot(d, view.f);
    if (z < NEAR) { return null; }
    return [view.cx + view.F * dot(d, view.r) / z, view.cy - view.F * dot(d, view.u) / z, z];
  }
  function depth(p) { return dot(sub(p, view.eye), view.f); }
  function pixels(length, z) { return length * view.F / z; }

  // ---------------------------------------------------------------------------------------
  // Colours.

  function rgb(hex) {
    var n = parseInt(hex.slice(1), 16);
    return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  }
  function css(c, a) {
    return 'rgba(' + Math.round(c[0]) + ',' + Math.round(c[1]) + ',' + Math.round(c[2]) + ',' +
      (a === undefined ? 1 : a) + ')';
  }
  function shade(c, f) { return [c[0] * f, c[1] * f, c[2] * f]; }
  var sideColors = scene.side_colors.map(rgb);
  var solidColors = scene.solid_colors.map(rgb);
  var RUN_TINTS = [null, [148, 103, 189], [23, 190, 207]];

  // Colour c as drawn in run `run`: the compared solutions after the first are tinted.
  function tinted(c, run) {
    var tint = RUN_TINTS[run % RUN_TINTS.length];
    return tint ? [0.5 * (c[0] + tint[0]), 0.5 * (c[1] + tint[1]), 0.5 * (c[2] + tint[2])] : c;
  }
  function bodyColor(side, run, solid) {
    return tinted((solid ? solidColors : sideColors)[side], run);
  }
  function lit(c, normal) {
    return shade(c, 0.55 + 0.45 * Math.max(0, dot(normal, view.light)));
  }

  // ---------------------------------------------------------------------------------------
  // Drawing.

  var state = {
    t: t0, playing: false, speed: 1, skeleton: false, labels: false, sideBySide: false,
    traced: {}
  };
  scene.traced.forEach(function (i) { state.traced[i] = true; });

  // The solids of a robot with meshes, drawn with WebGL by viewer_solids.js (null when the
  // page has no meshes or the browser no WebGL 2: then the meshes are not drawn, and their
  // bodies are drawn as sticks).
  var meshShapes = scene.mesh_shapes || [];
  var solidBodies = {};
  scene.shapes.concat(meshShapes).forEach(function (s) {
    if (s.body >= 0) { solidBodies[s.body] = true; }
  });
  var solids = meshShapes.length && window.vitoSolids
    ? window.vitoSolids(scene, tinted, function (side) { return solidColors[side]; },
      FADED_ALPHA, function () {
        var g = groundSquare();
        return [g.gy - g.half, g.gy + g.half];
      })
    : null;

  function polygon(points) {
    ctx.beginPath();
    ctx.moveTo(points[0][0], points[0][1]);
    for (var i = 1; i < points.length; i++) { ctx.lineTo(points[i][0], points[i][1]); }
    ctx.closePath();
  }
  function hull(points) {
    var p = points.slice().sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    if (p.length < 3) { return p; }
    var crossz = function (o, a, b) {
      return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
    };
    var lower = [], upper = [], i;
    for (i = 0; i < p.length; i++) {
      while (lower.length >= 2 && crossz(lower[lower.length - 2], lower[lower.length - 1], p[i]) <= 0) { lower.pop(); }
      lower.push(p[i]);
    }
    for (i = p.length - 1; i >= 0; i--) {
      while (upper.length >= 2 && crossz(upper[upper.length - 2], upper[upper.length - 1], p[i]) <= 0) { upper.pop(); }
      upper.push(p[i]);
    }
    lower.pop(); upper.pop();
    return lower.concat(upper);
  }
  function rim(pose, r, z, n) {
    var out = [];
    for (var k = 0; k < n; k++) {
      var a = 2 * Math.PI * k / n;
      out.push(transform(pose, [r * Math.cos(a), r * Math.sin(a), z]));
    }
    return out;
  }
  function projectAll(points) {
    var out = [];
    for (var i = 0; i < points.length; i++) {
      var q = project(points[i]);
      if (!q) { return null; }
      out.push(q);
    }
    return out;
  }

  var BOX_FACES = [
    [[0, 2, 6, 4], [-1, 0, 0]], [[1, 5, 7, 3], [1, 0, 0]], [[0, 4, 5, 1], [0, -1, 0]],
    [[2, 3, 7, 6], [0, 1, 0]], [[0, 1, 3, 2], [0, 0, -1]], [[4, 6, 7, 5], [0, 0, 1]]
  ];

  // Faces of a box of sides d at pose, as items to sort; faces longer than `tile` are cut
  // into tiles so that the sort by distance holds next to the robot (`outer`: which faces of
  // such a tile are on the outside of the whole box).
  function boxItems(items, pose, d, color, alpha, tile, outer) {
    if (tile) {
      var n = d.map(function (v) { return Math.max(1, Math.ceil(v / tile)); });
      if (n[0] * n[1] * n[2] > 1) {
        for (var i = 0; i < n[0]; i++) {
          for (var j = 0; j < n[1]; j++) {
            for (var k = 0; k < n[2]; k++) {
              var c = [(i + 0.5) / n[0] - 0.5, (j + 0.5) / n[1] - 0.5, (k + 0.5) / n[2] - 0.5];
              var part = { R: pose.R, p: transform(pose, [c[0] * d[0], c[1] * d[1], c[2] * d[2]]) };
              boxItems(items, part, [d[0] / n[0], d[1] / n[1], d[2] / n[2]], color, alpha, 0,
                [i === 0, i === n[0] - 1, j === 0, j === n[1] - 1, k === 0, k === n[2] - 1]);
            }
          }
        }
        return;
      }
    }
    var corners = [];
    for (var k = 0; k < 8; k++) {
      corners.push(transform(pose, [
        (k & 1 ? 0.5 : -0.5) * d[0], (k & 2 ? 0.5 : -0.5) * d[1], (k & 4 ? 0.5 : -0.5) * d[2]
      ]));
    }
    BOX_FACES.forEach(function (face, f) {
      if (outer && !outer[f]) { return; }
      var n = rotate(pose.R, face[1]);
      var pts = face[0].map(function (i) { return corners[i]; });
      var mid = scale(pts.reduce(add), 0.25);
      if (dot(n, sub(mid, view.eye)) >= 0) { return; }
      var screen = projectAll(pts);
      if (!screen) { return; }
      var fill = css(lit(color, n), alpha);
      // Tiles of a cut face are outlined in their own colour: no seams between them.
      var line = outer ? fill : css(shade(color, 0.6), alpha);
      items.push({
        z: depth(mid), draw: function () {
          polygon(screen);
          ctx.fillStyle = fill; ctx.fill();
          ctx.strokeStyle = line; ctx.lineWidth = 1; ctx.stroke();
        }
      });
    });
  }

  function shapeItems(items, shape, pose, run, alpha) {
    var color = bodyColor(shape.side, run, true);
    var d = shape.size;
    if (shape.kind === 'box') { boxItems(items, pose, d, color, alpha); return; }
    var c = project(pose.p);
    if (!c) { return; }
    if (shape.kind === 'sphere') {
      var rad = pixels(d[0], c[2]);
      items.push({
        z: c[2], draw: function () {
          ctx.beginPath(); ctx.arc(c[0], c[1], Math.max(rad, 1), 0, 2 * Math.PI);
          ctx.fillStyle = css(lit(color, scale(view.f, -1)), alpha); ctx.fill();
          ctx.strokeStyle = css(shade(color, 0.6), alpha); ctx.lineWidth = 1; ctx.stroke();
        }
      });
      return;
    }
    var r = d[0], half = 0.5 * d[1];
    var axis = rotate(pose.R, [0, 0, 1]);
    if (shape.kind === 'capsule') {
      var a = project(transform(pose, [0, 0, -half])), b = project(transform(pose, [0, 0, half]));
      if (!a || !b) { return; }
      var w = 2 * pixels(r, c[2]);
      items.push({
        z: c[2], draw: function () {
          ctx.lineCap = 'round';
          ctx.strokeStyle = css(shade(color, 0.6), alpha); ctx.lineWidth = w + 2;
          ctx.beginPath(); ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]); ctx.stroke();
          ctx.strokeStyle = css(lit(color, scale(view.f, -1)), alpha); ctx.lineWidth = w;
          ctx.stroke();
        }
      });
      return;
    }
    // A cylinder: its silhouette (hull of both rims), then the cap that faces the camera.
    var bottom = rim(pose, r, -half, 18), top = rim(pose, r, half, 18);
    var sb = projectAll(bottom), st = projectAll(top);
    if (!sb || !st) { return; }
    var outline = hull(sb.concat(st));
    var sideNormal = unit(sub(scale(view.f, -1), scale(axis, dot(scale(view.f, -1), axis))));
    items.push({
      z: c[2], draw: function () {
        polygon(outline);
        ctx.fillStyle = css(lit(color, sideNormal), alpha); ctx.fill();
        ctx.strokeStyle = css(shade(color, 0.6), alpha); ctx.lineWidth = 1; ctx.stroke();
      }
    });
    [[top, st, axis, half], [bottom, sb, scale(axis, -1), -half]].forEach(function (cap) {
      var mid = transform(pose, [0, 0, cap[3]]);
      if (dot(cap[2], sub(mid, view.eye)) >= 0) { return; }
      items.push({
        z: depth(mid) - 1e-6, draw: function () {
          polygon(cap[1]);
          ctx.fillStyle = css(lit(color, cap[2]), alpha); ctx.fill();
          ctx.strokeStyle = css(shade(color, 0.6), alpha); ctx.lineWidth = 1; ctx.stroke();
        }
      });
    });
  }

  function lineItem(items, p, q, color, widthWorld, minWidth, alpha) {
    var a = project(p), b = project(q);
    if (!a || !b) { return; }
    var z = 0.5 * (a[2] + b[2]);
    var w = Math.max(minWidth, pixels(widthWorld, z));
    items.push({
      z: z, draw: function () {
        ctx.lineCap = 'round';
        ctx.strokeStyle = css(color, alpha); ctx.lineWidth = w;
        ctx.beginPath(); ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]); ctx.stroke();
      }
    });
  }

  function dotItem(items, p, radiusWorld, minRadius, fill, stroke, alpha, bias) {
    var c = project(p);
    if (!c) { return; }
    var r = Math.max(minRadius, pixels(radiusWorld, c[2]));
    items.push({
      z: c[2] - bias, draw: function () {
        ctx.beginPath(); ctx.arc(c[0], c[1], r, 0, 2 * Math.PI);
        ctx.fillStyle = css(fill, alpha); ctx.fill();
        if (stroke) { ctx.strokeStyle = css(stroke, alpha); ctx.lineWidth = 1.2; ctx.stroke(); }
      }
    });
  }

  function arrowItem(items, base, tip, color, alpha) {
    var a = project(base), b = project(tip);
    if (!a || !b) { return; }
    var dx = b[0] - a[0], dy = b[1] - a[1], len = Math.hypot(dx, dy);
    if (len < 2) { return; }
    var ux = dx / len, uy = dy / len, head = Math.min(10, 0.4 * len);
    items.push({
      z: Math.min(a[2], b[2]) - 1e-3 * size, draw: function () {
        ctx.strokeStyle = css(color, alpha); ctx.fillStyle = css(color, alpha);
        ctx.lineWidth = 2.5; ctx.lineCap = 'butt';
        ctx.beginPath(); ctx.moveTo(a[0], a[1]);
        ctx.lineTo(b[0] - ux * head, b[1] - uy * head); ctx.stroke();
        ctx.beginPath(); ctx.moveTo(b[0], b[1]);
        ctx.lineTo(b[0] - ux * head - uy * head * 0.45, b[1] - uy * head + ux * head * 0.45);
        ctx.lineTo(b[0] - ux * head + uy * head * 0.45, b[1] - uy * head - ux * head * 0.45);
        ctx.closePath(); ctx.fill();
      }
    });
  }

  function label(items, p, text, color) {
    var c = project(p);
    if (!c) { return; }
    items.push({
      z: -Infinity, draw: function () {
        ctx.font = '11px system-ui, sans-serif'; ctx.fillStyle = color;
        ctx.fillText(text, c[0] + 6, c[1] - 6);
      }
    });
  }

  // The square of ground drawn: its height, grid step, centre and half side.
  function groundSquare() {
    var hasGround = scene.ground !== null && scene.ground !== undefined;
    var step = niceStep(size / 4);
    return {
      hasGround: hasGround, z: hasGround ? scene.ground : lo[2] - 0.05 * size, step: step,
      half: Math.ceil(1.2 * size / step) * step,
      gx: Math.round(centre[0] / step) * step, gy: Math.round(centre[1] / step) * step
    };
  }

  // The ground plane (or a reference floor under a robot that stands on nothing), with its
  // grid, gaps and boxes (the boxes drawn by `solids` when it draws the solids).
  function drawGround(items) {
    var square = groundSquare(), hasGround = square.hasGround, z = square.z;
    var step = square.step, half = square.half, gx = square.gx, gy = square.gy;
    var corners = [[gx - half, gy - half, z], [gx + half, gy - half, z],
      [gx + half, gy + half, z], [gx - half, gy + half, z]];
    var above = view.eye[2] > z;
    var sc = projectAll(corners);
    if (sc && above) {
      polygon(sc);
      ctx.fillStyle = hasGround ? '#e6e2da' : 'rgba(225, 228, 234, 0.7)';
      ctx.fill();
    }
    ctx.strokeStyle = hasGround ? 'rgba(150, 140, 120, 0.45)' : 'rgba(160, 166, 178, 0.5)';
    ctx.lineWidth = 1;
    for (var v = -half; v <= half + 1e-9; v += step) {
      segment([gx + v, gy - half, z], [gx + v, gy + half, z]);
      segment([gx - half, gy + v, z], [gx + half, gy + v, z]);
    }
    var t = scene.terrain;
    if (!t) { return; }
    var width = function (y) { return y || [gy - half, gy + half]; };
    (t.gaps || []).forEach(function (g) {
      var y = width(g.y), bottom = z - g.depth;
      var top = [[g.x[0], y[0], z], [g.x[1], y[0], z], [g.x[1], y[1], z], [g.x[0], y[1], z]];
      var st = projectAll(top);
      if (st) {
        polygon(st); ctx.fillStyle = '#5a544c'; ctx.fill();
        ctx.strokeStyle = '#3c3832'; ctx.stroke();
      }
      var floor = projectAll(top.map(function (p) { return [p[0], p[1], bottom]; }));
      if (floor && above) {
        polygon(floor); ctx.fillStyle = 'rgba(40, 36, 32, 0.5)'; ctx.fill();
      }
    });
    (solids ? [] : t.boxes || []).forEach(function (b) {
      var y = width(b.y), h = b.top - z;
      var pose = {
        R: [1, 0, 0, 0, 1, 0, 0, 0, 1],
        p: [0.5 * (b.x[0] + b.x[1]), 0.5 * (y[0] + y[1]), z + 0.5 * h]
      };
      boxItems(items, pose, [b.x[1] - b.x[0], y[1] - y[0], h], [196, 184, 160], 1, size / 3);
    });
  }
  function segment(p, q) {
    var a = project(p), b = project(q);
    if (!a || !b) { return; }
    ctx.beginPath(); ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]); ctx.stroke();
  }
  function niceStep(x) {
    var p = Math.pow(10, Math.floor(Math.log10(x)));
    var best = p;
    [1, 2, 5, 10].forEach(function (m) {
      if (Math.abs(Math.log(m * p / x)) < Math.abs(Math.log(best / x))) { best = m * p; }
    });
    return best;
  }

  // Whether the joint marker and bones of body b are hidden: WebGL draws its solids, and the
  // skeleton is off (markers are drawn over the solids that WebGL draws, not sorted with them).
  function hidden(b) {
    return !!solids && !state.skeleton && !!solidBodies[b];
  }

  // Offset of run r in the side-by-side comparison.
  function runOffset(r) {
    return state.sideBySide ? [r * 1.2 * (hi[0] - lo[0] + 0.2 * size), 0, 0] : null;
  }

  // The trace of point i over the whole of run r.
  var traceCache = {};
  function trace(r, i) {
    var key = r + ':' + i;
    if (!traceCache[key]) {
      var run = runs[r], a = scene.points[i].at, b = a[0];
      traceCache[key] = run.poses.map(function (row) {
        return transform(poseOf(row.slice(7 * b, 7 * b + 7)), [a[1], a[2], a[3]]);
      });
    }
    return traceCache[key];
  }

  // Gives the canvas as many pixels as it shows.
  function resize() {
    var dpr = window.devicePixelRatio || 1;
    var w = Math.max(1, Math.round(canvas.clientWidth * dpr));
    var h = Math.max(1, Math.round(canvas.clientHeight * dpr));
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w; canvas.height = h;
    }
  }

  function render() {
    resize();
    var w = canvas.width, h = canvas.height;
    setupView();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = css(BACKGROUND);
    ctx.fillRect(0, 0, w, h);
    ctx.lineJoin = 'round';
    var items = [];
    drawGround(items);
    var boneWidth = 0.012 * size, jointRadius = 0.01 * size;
    // Traces first: the robot passes in front of its own path.
    var tracedPoints = Object.keys(state.traced).filter(function (i) { return state.traced[i]; });
    runs.forEach(function (run, r) {
      var offset = runOffset(r);
      tracedPoints.forEach(function (i, n) {
        var path = projectAll(trace(r, i).map(function (p) { return offset ? add(p, offset) : p; }));
        if (!path || path.length < 2) { return; }
        ctx.strokeStyle = css(rgb(TRACE_COLORS[n % TRACE_COLORS.length]), r === 0 ? 0.85 : 0.4);
        ctx.lineWidth = 1.5;
        ctx.beginPath(); ctx.moveTo(path[0][0], path[0][1]);
        for (var k = 1; k < path.length; k++) { ctx.lineTo(path[k][0], path[k][1]); }
        ctx.stroke();
      });
    });
    var solidPoses = [], solidOffsets = [];
    runs.forEach(function (run, r) {
      var poses = posesAt(run, state.t);
      solidPoses.push(poses);
      solidOffsets.push(runOffset(r));
      if (!poses) { return; }
      var offset = runOffset(r);
      if (offset) {
        poses = poses.map(function (p) { return { R: p.R, p: add(p.p, offset) }; });
      }
      var alpha = r === 0 ? 1 : FADED_ALPHA;
      var world = { R: [1, 0, 0, 0, 1, 0, 0, 0, 1], p: offset || [0, 0, 0] };
      if (!solids) {
        scene.shapes.forEach(function (s, i) {
          var base = s.body < 0 ? world : poses[s.body];
          shapeItems(items, s, compose(base, shapePoses[i]), r, alpha);
        });
      }
      scene.bones.forEach(function (b) {
        if (!b.bare && !state.skeleton) { return; }
        if (hidden(b.a[0])) { return; }
        lineItem(items, at(poses, b.a, b.a[0] < 0 ? offset : null),
          at(poses, b.b, b.b[0] < 0 ? offset : null),
          bodyColor(b.side, r), boneWidth, 2, alpha);
      });
      scene.soles.forEach(function (sole) {
        var pts = sole[1].map(function (a) { return at(poses, a); });
        for (var k = 0; k < pts.length; k++) {
          for (var m = k + 1; m < pts.length; m++) {
            lineItem(items, pts[k], pts[m], bodyColor(sole[0], r), 0.3 * boneWidth, 1, alpha);
          }
        }
      });
      scene.joints.forEach(function (j) {
        if (hidden(j[0])) { return; }
        dotItem(items, at(poses, j), jointRadius, 2.5, [255, 255, 255], [40, 40, 40], alpha,
          1e-3 * size);
      });
      scene.points.forEach(function (p, i) {
        if (p.contact) {
          dotItem(items, at(poses, p.at), 0.8 * jointRadius, 2.5, rgb(CONTACT_COLOR), null,
            alpha, 2e-3 * size);
        }
        if (state.labels && (p.contact || state.traced[i])) {
          label(items, at(poses, p.at), p.name, '#555');
        }
      });
      if (!solids || state.skeleton) {
        dotItem(items, at(poses, scene.root, scene.root[0] < 0 ? offset : null), jointRadius,
          3, [30, 30, 30], null, alpha, 1e-3 * size);
      }
      if (scene.force_scale > 0) {
        forcesAt(run, state.t).forEach(function (f) {
          if (!f.value) { return; }
          var base = at(poses, scene.points[f.point].at);
          arrowItem(items, base, add(base, scale(f.value, scene.force_scale)),
            rgb(FORCE_COLOR), alpha);
        });
      }
    });
    scene.targets.forEach(function (tg) {
      var now = tg.time === null || tg.time === undefined ||
        Math.abs(tg.time - state.t) < 0.02 * Math.max(t1 - t0, 1e-3);
      var ball = 0.025 * size;
      dotItem(items, tg.position, ball, 4, rgb(TARGET_COLOR), [20, 90, 20], now ? 0.8 : 0.3, 0);
      if (state.labels) {
        label(items, tg.position, tg.frame + (tg.axes ? ' (' + tg.axes.length + ' axes)' : '') +
          (tg.time === null || tg.time === undefined ? '' : ' @ ' + tg.time.toFixed(3) + ' s'),
          '#1b5e20');
      }
    });
    if (solids) {
      ctx.drawImage(solids.draw({
        width: w, height: h, eye: view.eye, f: view.f, u: view.u, fov: FOV, distance: cam.dist,
        size: size
      }, solidPoses, solidOffsets), 0, 0);
    }
    items.sort(function (a, b) { return b.z - a.z; });
    items.forEach(function (it) { it.draw(); });
    drawAxes(w, h);
    document.getElementById('clock').textContent =
      't = ' + state.t.toFixed(3) + ' s / ' + t1.toFixed(3) + ' s';
    slider.value = String(state.t);
  }

  // A small x/y/z triad in the lower left corner.
  function drawAxes(w, h) {
    var o = [46, h - 46], len = 28;
    [[[1, 0, 0], '#d62728', 'x'], [[0, 1, 0], '#2ca02c', 'y'], [[0, 0, 1], '#1f77b4', 'z']]
      .forEach(function (a) {
        var dx = dot(a[0], view.r), dy = -dot(a[0], view.u);
        ctx.strokeStyle = a[1]; ctx.lineWidth = 2;
        ctx.beginPath(); ctx.moveTo(o[0], o[1]); ctx.lineTo(o[0] + len * dx, o[1] + len * dy);
        ctx.stroke();
        ctx.fillStyle = a[1]; ctx.font = '11px system-ui, sans-serif';
        ctx.fillText(a[2], o[0] + (len + 6) * dx - 3, o[1] + (len + 6) * dy + 4);
      });
  }

  // ---------------------------------------------------------------------------------------
  // Controls.

  var frameTimes = runs.reduce(function (best, r) {
    return r.times.length > best.length ? r.times : best;
  }, []);

  function setTime(t) {
    state.t = Math.min(t1, Math.max(t0, t));
    render();
  }
  function step(direction) {
    state.playing = false;
    updatePlay();
    var eps = 1e-9 * Math.max(1, t1 - t0);
    var k = frameAt({ times: frameTimes }, state.t + (direction > 0 ? eps : -eps));
    if (direction > 0) {
      if (frameTimes[k] <= state.t + eps) { k = Math.min(frameTimes.length - 1, k + 1); }
    } else if (frameTimes[k] >= state.t - eps) {
      k = Math.max(0, k - 1);
    }
    if (k >= 0) { setTime(frameTimes[k]); }
  }
  function updatePlay() {
    document.getElementById('play').textContent = state.playing ? '❚❚' : '▶';
  }
  var last = null;
  function tick(now) {
    if (!state.playing) { last = null; return; }
    if (last !== null) {
      var t = state.t + state.speed * (now - last) / 1000;
      if (t > t1) { t = t0; }
      setTime(t);
    }
    last = now;
    window.requestAnimationFrame(tick);
  }
  function play(on) {
    state.playing = on && t1 > t0;
    updatePlay();
    if (state.playing) {
      if (state.t >= t1) { state.t = t0; }
      window.requestAnimationFrame(tick);
    }
  }

  function buildPanel() {
    document.title = scene.title + ' — vito';
    document.getElementById('title').textContent = scene.title;
    var info = document.getElementById('info');
    scene.info.forEach(function (line) {
      var d = document.createElement('div');
      d.className = 'info'; d.textContent = line; info.appendChild(d);
    });
    var legend = document.getElementById('legend');
    var key = [];
    if (runs.length > 1) {
      runs.forEach(function (r, i) {
        key.push([css(bodyColor(1, i), i === 0 ? 1 : FADED_ALPHA), r.label, 'swatch']);
      });
    }
    var sides = {};
    scene.bones.concat(scene.shapes).forEach(function (b) { sides[b.side] = true; });
    if (sides[0]) { key.push([css(sideColors[0]), 'left', 'swatch']); }
    if (sides[2]) { key.push([css(sideColors[2]), 'right', 'swatch']); }
    if (scene.points.some(function (p) { return p.contact; })) {
      key.push([CONTACT_COLOR, 'contact point', 'dot']);
    }
    if (scene.force_scale > 0) {
      var newtons = 0.1 / scene.force_scale;
      key.push([FORCE_COLOR, 'contact force: 0.1 m = ' + newtons.toPrecision(3) + ' N', 'swatch']);
    }
    if (scene.targets.length) { key.push([TARGET_COLOR, 'target', 'dot']); }
    if (scene.terrain && scene.terrain.friction !== null && scene.terrain.friction !== undefined) {
      key.push(['#c4b8a0', 'terrain, friction μ = ' + scene.terrain.friction, 'swatch']);
    }
    if (key.length) {
      var h = document.createElement('h2'); h.textContent = 'Key'; legend.appendChild(h);
    }
    key.forEach(function (k) {
      var d = document.createElement('div'), s = document.createElement('span');
      s.className = k[2]; s.style.background = k[0];
      d.appendChild(s); d.appendChild(document.createTextNode(k[1]));
      legend.appendChild(d);
    });
    var notes = [];
    if (meshShapes.length && !solids) {
      notes.push('This browser has no WebGL 2: the meshes are not drawn.');
    }
    var missing = scene.missing_meshes || [];
    if (missing.length) {
      notes.push('Meshes not drawn (' + missing.length + '):');
      notes = notes.concat(missing);
      notes.push('vito view RESULT --package-path DIR looks for them in DIR too.');
      console.warn('vito viewer: meshes not drawn: ' + missing.join('; '));
    }
    notes.forEach(function (line) {
      var d = document.createElement('div');
      d.className = 'note'; d.textContent = line; legend.appendChild(d);
    });
    if (runs.length > 1) {
      var box = document.getElementById('compare-box');
      var l = document.createElement('label'), c = document.createElement('input');
      c.type = 'checkbox'; c.id = 'side-by-side';
      c.addEventListener('change', function () {
        state.sideBySide = c.checked; traceCache = {}; render();
      });
      l.appendChild(c); l.appendChild(document.createTextNode(' solutions side by side'));
      box.appendChild(l);
    }
    var list = document.getElementById('trace-list');
    scene.points.forEach(function (p, i) {
      var l = document.createElement('label'), c = document.createElement('input');
      c.type = 'checkbox'; c.checked = !!state.traced[i];
      c.addEventListener('change', function () { state.traced[i] = c.checked; render(); });
      l.appendChild(c);
      l.appendChild(document.createTextNode(' ' + p.name + (p.contact ? ' (contact)' : '')));
      list.appendChild(l);
    });
  }

  function bindControls() {
    slider.min = String(t0);
    slider.max = String(t1);
    slider.step = String(Math.max((t1 - t0) / 2000, 1e-6));
    slider.addEventListener('input', function () {
      state.playing = false; updatePlay(); setTime(parseFloat(slider.value));
    });
    document.getElementById('play').addEventListener('click', function () {
      play(!state.playing);
    });
    document.getElementById('prev').addEventListener('click', function () { step(-1); });
    document.getElementById('next').addEventListener('click', function () { step(1); });
    document.getElementById('speed').addEventListener('change', function (e) {
      state.speed = parseFloat(e.target.value);
    });
    Array.prototype.forEach.call(document.querySelectorAll('#views button'), function (b) {
      b.addEventListener('click', function () {
        if (b.dataset.view === 'fit') { fit(); } else { preset(b.dataset.view); }
        render();
      });
    });
    document.getElementById('skeleton').addEventListener('change', function (e) {
      state.skeleton = e.target.checked; render();
    });
    document.getElementById('labels').addEventListener('change', function (e) {
      state.labels = e.target.checked; render();
    });
    var drag = null;
    canvas.addEventListener('contextmenu', function (e) { e.preventDefault(); });
    canvas.addEventListener('pointerdown', function (e) {
      drag = { x: e.clientX, y: e.clientY, pan: e.button === 2 || e.shiftKey };
      canvas.setPointerCapture(e.pointerId);
      canvas.classList.add('dragging');
    });
    canvas.addEventListener('pointermove', function (e) {
      if (!drag) { return; }
      var dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      drag.x = e.clientX; drag.y = e.clientY;
      if (drag.pan) {
        var k = cam.dist / view.F * (window.devicePixelRatio || 1);
        cam.target = add(cam.target, add(scale(view.r, -dx * k), scale(view.u, dy * k)));
      } else {
        cam.azim -= 0.008 * dx;
        cam.elev = Math.max(-1.55, Math.min(1.55, cam.elev + 0.008 * dy));
      }
      render();
    });
    var end = function () { drag = null; canvas.classList.remove('dragging'); };
    canvas.addEventListener('pointerup', end);
    canvas.addEventListener('pointercancel', end);
    canvas.addEventListener('wheel', function (e) {
      e.preventDefault();
      cam.dist *= Math.exp(0.0015 * e.deltaY);
      render();
    }, { passive: false });
    window.addEventListener('keydown', function (e) {
      if (e.target && e.target.tagName === 'INPUT' && e.target.type !== 'range') { return; }
      if (e.key === ' ') { e.preventDefault(); play(!state.playing); }
      if (e.key === 'ArrowRight') { e.preventDefault(); step(1); }
      if (e.key === 'ArrowLeft') { e.preventDefault(); step(-1); }
      if (e.key === 'Home') { setTime(t0); }
      if (e.key === 'End') { setTime(t1); }
    });
    window.addEventListener('resize', render);
  }

  // ---------------------------------------------------------------------------------------
  // Self-test: transforms against the forward kinematics, picture not blank, the slider moves
  // the picture.

  function snapshot() {
    return ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  }
  function selftest() {
    var verdict = { errors: window.vitoErrors.slice() };
    if (scene.check) {
      var poses = posesAtFrame(runs[0], scene.check.frame), worst = 0;
      scene.points.forEach(function (p, i) {
        worst = Math.max(worst, norm(sub(at(poses, p.at), scene.check.points[i])));
      });
      verdict.transform_error = worst;
    }
    setTime(t0);
    var a = snapshot(), n = a.length / 4, filled = 0;
    for (var i = 0; i < a.length; i += 4) {
      if (Math.abs(a[i] - BACKGROUND[0]) + Math.abs(a[i + 1] - BACKGROUND[1]) +
        Math.abs(a[i + 2] - BACKGROUND[2]) > 24) { filled++; }
    }
    verdict.filled = filled / n;
    slider.value = String(t1);
    slider.dispatchEvent(new Event('input'));
    var b = snapshot(), moved = 0;
    for (var j = 0; j < a.length; j += 4) {
      if (Math.abs(a[j] - b[j]) + Math.abs(a[j + 1] - b[j + 1]) + Math.abs(a[j + 2] - b[j + 2]) > 24) {
        moved++;
      }
    }
    verdict.changed = moved / n;
    verdict.time_after_slider = state.t;
    verdict.end_time = t1;
    verdict.canvas = [canvas.width, canvas.height];
    verdict.solids = solids ? 'webgl' : meshShapes.length ? 'no-webgl' : 'none';
    verdict.mesh_triangles = solids ? solids.triangles : 0;
    verdict.missing_meshes = (scene.missing_meshes || []).length;
    verdict.load_ms = performance.now();
    verdict.errors = window.vitoErrors.slice();
    document.getElementById('vito-selftest').textContent = JSON.stringify(verdict);
  }

  // ---------------------------------------------------------------------------------------
  // Start.

  buildPanel();
  bindControls();
  resize();
  preset(options.view || '3d');
  if (options.t !== undefined) { state.t = Math.min(t1, Math.max(t0, parseFloat(options.t) || 0)); }
  render();
  window.vitoViewer = { render: render, setTime: setTime, state: state, camera: cam };
  if (options.selftest) {
    selftest();
  } else if (options.t === undefined && options.view === undefined) {
    play(true);
  }
})();
