//! The lattice rings: ML-KEM and ML-DSA NTTs in every mode (lazy or
//! canonical, standard or permuted order) on raw words, the NTT-domain
//! products with k terms and caches, and NTT → products → inverse round
//! trips against the schoolbook product.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nttfuse_fuzz::{fuzz, Target};

fuzz_target!(|data: &[u8]| fuzz(Target::Lattice, data));
