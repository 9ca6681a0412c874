//! The `bench` signature: distinct positions after 1, 2 and 3 plies from the
//! opening. Any change to these numbers is a functional change of move
//! generation and must be explained.

use sheshbesh_engine::rules::perft::distinct_positions;

#[test]
fn signature_is_stable() {
    assert_eq!(distinct_positions(3), vec![175, 71_485, 14_514_318]);
}
