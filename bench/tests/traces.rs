//! Traces streamed to disk while the run goes are the files written before they were: the
//! Chrome JSON of virtual-time runs (exact, so byte-identical run to run) hashes to what the
//! build before streaming wrote for the same command (main at 6268ce8, recorded here). Each
//! run records more than a processor's 64 KiB buffer holds, so its trace is read back from
//! the spill.

#[allow(dead_code)]
mod common;

use common::run_in;

/// FNV-1a, 64 bits: a stable hash of a file's bytes.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[test]
fn streamed_traces_are_byte_identical_to_those_written_before_streaming() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.json");
    for (line, bytes, hash) in [
        (
            "emulate -t chain:4 --rounds 6000 --occupy 1ms --mode virtual",
            1_748_279,
            0x4d49_9ce6_ebf6_ae09,
        ),
        (
            "emulate -t binary:3 --pattern reduce --rounds 1500 --mode virtual \
             --send-overhead 10us --loop-count 10",
            4_887_458,
            0xb29f_fbd0_15ee_4e87,
        ),
        (
            "farm -t binary:3 --tasks 300 --te 1ms --mode virtual",
            490_678,
            0xc005_b766_cfc0_649e,
        ),
        (
            "dnc -t binary:3 --tasks 300 --mode virtual",
            1_393_212,
            0x73b2_fc82_fb94_e5e7,
        ),
    ] {
        let o = run_in(
            &dir.path().join("results"),
            line,
            &["--trace", trace.to_str().unwrap()],
        );
        common::ok(&o);
        let written = std::fs::read(&trace).unwrap();
        assert_eq!((written.len(), fnv1a(&written)), (bytes, hash), "{line}");
        // The spill was an unnamed file beside the trace: nothing else is left there.
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(left, ["t.json"], "{line}");
    }
}
