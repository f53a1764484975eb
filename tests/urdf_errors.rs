//! Every URDF vito refuses is refused with a message naming the joint or link at fault.

use vito::model::{BaseKind, parse_urdf};

const GOOD_LINK: &str = r#"<inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>"#;

fn link(name: &str) -> String {
    format!("<link name=\"{name}\">{GOOD_LINK}</link>")
}

fn revolute(name: &str, parent: &str, child: &str, extra: &str) -> String {
    format!(
        "<joint name=\"{name}\" type=\"revolute\"><parent link=\"{parent}\"/><child link=\"{child}\"/>\
         <axis xyz=\"0 1 0\"/><limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>{extra}</joint>"
    )
}

fn robot(body: &str) -> String {
    format!("<robot name=\"r\">{body}</robot>")
}

fn refused(urdf: &str) -> String {
    match parse_urdf(urdf, "test.urdf", BaseKind::Fixed) {
        Ok(_) => panic!("accepted: {urdf}"),
        Err(e) => e.to_string(),
    }
}

fn assert_names(msg: &str, words: &[&str]) {
    for w in words {
        assert!(msg.contains(w), "message {msg:?} does not name {w:?}");
    }
    assert!(
        msg.starts_with("test.urdf"),
        "message {msg:?} does not name the file"
    );
}

#[test]
fn floating_and_planar_urdf_joints_are_refused() {
    for kind in ["floating", "planar"] {
        let u = robot(&format!(
            "{}{}<joint name=\"free\" type=\"{kind}\"><parent link=\"base\"/><child link=\"a\"/></joint>",
            link("base"),
            link("a")
        ));
        assert_names(&refused(&u), &["free", kind, "--base"]);
    }
}

#[test]
fn several_roots_are_refused() {
    let u = robot(&format!(
        "{}{}{}{}",
        link("base"),
        link("a"),
        link("stray"),
        revolute("j1", "base", "a", "")
    ));
    assert_names(&refused(&u), &["several root", "base", "stray"]);
}

#[test]
fn missing_child_or_parent_link_is_refused() {
    let u = robot(&format!(
        "{}{}",
        link("base"),
        revolute("j1", "base", "ghost", "")
    ));
    assert_names(&refused(&u), &["j1", "child", "ghost"]);
    let u = robot(&format!(
        "{}{}",
        link("a"),
        revolute("j2", "nowhere", "a", "")
    ));
    assert_names(&refused(&u), &["j2", "parent", "nowhere"]);
}

#[test]
fn negative_mass_is_refused() {
    for m in ["-2", "-0.5", "nan"] {
        let u = robot(&format!(
            "{}<link name=\"heavy\"><inertial><mass value=\"{m}\"/>\
             <inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"/></inertial></link>{}",
            link("base"),
            revolute("j1", "base", "heavy", "")
        ));
        assert_names(&refused(&u), &["heavy", "mass", &m.replace("nan", "NaN")]);
    }
}

#[test]
fn impossible_inertia_is_refused() {
    // Grossly indefinite: a sign error, a swapped product of inertia, a 40 % negative moment.
    let cases = [
        ("0.1", "0", "0.1", "-0.1", "positive semi-definite"),
        ("0.1", "0.3", "0.1", "0.1", "positive semi-definite"),
        ("0.1", "0", "0.1", "-0.04", "positive semi-definite"),
    ];
    for (ixx, ixy, iyy, izz, why) in cases {
        let u = robot(&format!(
            "{}<link name=\"odd\"><inertial><mass value=\"1\"/>\
             <inertia ixx=\"{ixx}\" ixy=\"{ixy}\" ixz=\"0\" iyy=\"{iyy}\" iyz=\"0\" izz=\"{izz}\"/></inertial></link>{}",
            link("base"),
            revolute("j1", "base", "odd", "")
        ));
        assert_names(&refused(&u), &["odd", why]);
    }
}

#[test]
fn thin_rod_with_zero_axial_inertia_is_accepted() {
    let u = robot(&format!(
        "{}<link name=\"rod\"><inertial><mass value=\"1\"/>\
         <inertia ixx=\"0.02\" ixy=\"0\" ixz=\"0\" iyy=\"0.02\" iyz=\"0\" izz=\"0\"/></inertial></link>{}",
        link("base"),
        revolute("j1", "base", "rod", "")
    ));
    assert!(parse_urdf(&u, "test.urdf", BaseKind::Fixed).is_ok());
}

#[test]
fn zero_axis_and_inverted_limits_are_refused() {
    let u = robot(&format!(
        "{}{}<joint name=\"spin\" type=\"revolute\"><parent link=\"base\"/><child link=\"a\"/>\
         <axis xyz=\"0 0 0\"/><limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint>",
        link("base"),
        link("a")
    ));
    assert_names(&refused(&u), &["spin", "axis"]);
    let u = robot(&format!(
        "{}{}<joint name=\"flip\" type=\"revolute\"><parent link=\"base\"/><child link=\"a\"/>\
         <axis xyz=\"0 1 0\"/><limit lower=\"1\" upper=\"-1\" effort=\"1\" velocity=\"1\"/></joint>",
        link("base"),
        link("a")
    ));
    assert_names(&refused(&u), &["flip", "lower limit"]);
}

#[test]
fn joint_loops_are_refused_naming_the_joints() {
    // A loop beside the tree, and a robot that is nothing but a loop.
    let u = robot(&format!(
        "{}{}{}{}{}{}{}",
        link("base"),
        link("arm"),
        link("a"),
        link("b"),
        revolute("j0", "base", "arm", ""),
        revolute("ab", "a", "b", ""),
        revolute("ba", "b", "a", "")
    ));
    assert_names(&refused(&u), &["ab", "ba", "loop"]);
    let u = robot(&format!(
        "{}{}{}{}",
        link("a"),
        link("b"),
        revolute("ab", "a", "b", ""),
        revolute("ba", "b", "a", "")
    ));
    assert_names(&refused(&u), &["ab", "ba", "loop"]);
}

#[test]
fn an_empty_robot_is_refused() {
    assert_names(&refused("<robot name=\"r\"></robot>"), &["no links"]);
}

#[test]
fn xacro_and_other_formats_are_refused_saying_what_to_run() {
    let xacro = "<robot name=\"r\" xmlns:xacro=\"http://www.ros.org/wiki/xacro\">\
                 <xacro:property name=\"l\" value=\"1\"/><link name=\"a\"/></robot>";
    assert_names(&refused(xacro), &["xacro", "xacro FILE > robot.urdf"]);
    let expression = robot(&format!(
        "{}{}<joint name=\"j\" type=\"revolute\"><parent link=\"base\"/><child link=\"a\"/>\
         <origin xyz=\"0 0 ${{l}}\"/></joint>",
        link("base"),
        link("a")
    ));
    assert_names(&refused(&expression), &["'j'", "xacro", "xacro FILE"]);
    let sdf = "<sdf version=\"1.7\"><model name=\"m\"/></sdf>";
    assert_names(&refused(sdf), &["not a URDF", "SDF"]);
    let mjcf = "<mujoco model=\"m\"><worldbody/></mujoco>";
    assert_names(&refused(mjcf), &["not a URDF", "MuJoCo"]);
    assert_names(&refused("just text"), &["not a URDF"]);
}

#[test]
fn a_mimic_loop_and_a_mimic_of_a_fixed_joint_are_refused() {
    let u = robot(&format!(
        "{}{}{}{}{}",
        link("base"),
        link("a"),
        link("b"),
        revolute("j1", "base", "a", "<mimic joint=\"j2\"/>"),
        revolute("j2", "base", "b", "<mimic joint=\"j1\"/>")
    ));
    assert_names(&refused(&u), &["j1", "j2", "loop"]);
    let u = robot(&format!(
        "{}{}{}<joint name=\"weld\" type=\"fixed\"><parent link=\"base\"/><child link=\"a\"/></joint>{}",
        link("base"),
        link("a"),
        link("b"),
        revolute("j1", "base", "b", "<mimic joint=\"weld\"/>")
    ));
    assert_names(&refused(&u), &["j1", "weld", "mimic"]);
}

#[test]
fn malformed_xml_is_refused_with_the_file_name() {
    let msg = refused("<robot name=\"r\"><link name=\"a\">");
    assert!(msg.starts_with("test.urdf"), "{msg}");
}

#[test]
fn a_link_with_two_parents_is_refused() {
    let u = robot(&format!(
        "{}{}{}{}{}",
        link("base"),
        link("a"),
        link("b"),
        revolute("j1", "base", "a", ""),
        revolute("j2", "b", "a", "")
    ));
    assert_names(&refused(&u), &["'a'", "j1", "j2"]);
}

#[test]
fn springs_dampers_and_transmissions_are_read() {
    let u = robot(&format!(
        "{}{}{}{}{}<transmission name=\"t\"><type>transmission_interface/SimpleTransmission</type>\
         <joint name=\"hip\"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>\
         <actuator name=\"m\"><mechanicalReduction>1</mechanicalReduction></actuator></transmission>",
        link("base"),
        link("a"),
        link("b"),
        revolute("hip", "base", "a", ""),
        revolute(
            "ankle",
            "a",
            "b",
            "<dynamics damping=\"0.5\" spring_stiffness=\"20\" spring_reference=\"0.1\"/>"
        )
    ));
    let m = parse_urdf(&u, "test.urdf", BaseKind::Fixed).unwrap();
    assert!(m.joint(0).actuated && !m.joint(1).actuated);
    let spring = m.joint(1).spring.unwrap();
    assert_eq!(
        (spring.stiffness, spring.rest, m.joint(1).damping),
        (20.0, 0.1, 0.5)
    );
    // τ = −k (q − q_rest) − d q̇
    assert!((m.passive_force(1, 0.3, 2.0) - (-20.0 * 0.2 - 0.5 * 2.0)).abs() < 1e-12);
}
