//! Compiles the peers from checkouts named by environment variables:
//!
//! - `MLKEM_NATIVE_DIR`: a checkout of mlkem-native (its root, holding
//!   `mlkem/mlkem_native.c`). Four builds of its single-compilation-unit
//!   source, each with its own namespace prefix so they link side by side:
//!   the AVX2 backend for k = 2, 3, 4 and the portable C for k = 3.
//! - `DILITHIUM_DIR`: a checkout of pq-crystals/dilithium (its root, holding
//!   `avx2/` and `ref/`), mode 3: the avx2 NTT, inverse and pointwise
//!   assembly, and the ref NTT in C.
//!
//! Each peer that compiles sets `cfg(has_mlkem_native)` / `cfg(has_dilithium)`.
//! A peer whose variable is unset, whose path is missing or whose build
//! fails is left out, and the reason reaches the binary through
//! `NTTFUSE_PEERS_MLKEM_NATIVE` / `NTTFUSE_PEERS_DILITHIUM` so that it can
//! say so. Nothing of the peers is stored in this repository: the sources are
//! read from the checkout at build time, and only the glue in `csrc/` is ours.

use std::env;
use std::path::{Path, PathBuf};

/// The builds of mlkem-native: (shim prefix, parameter set, native backend).
const MLKEM_BUILDS: [(&str, u32, bool); 4] = [
    ("peer_mlkem_avx2_k2", 512, true),
    ("peer_mlkem_avx2_k3", 768, true),
    ("peer_mlkem_avx2_k4", 1024, true),
    ("peer_mlkem_c_k3", 768, false),
];

fn main() {
    println!("cargo:rerun-if-env-changed=MLKEM_NATIVE_DIR");
    println!("cargo:rerun-if-env-changed=DILITHIUM_DIR");
    println!("cargo:rerun-if-env-changed=CC");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=csrc");

    let x86_64 = env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("x86_64");

    let mlkem = peer_dir("MLKEM_NATIVE_DIR", "mlkem/mlkem_native.c").and_then(|dir| {
        if !x86_64 {
            return Err("not built: the AVX2 backend needs an x86-64 target".into());
        }
        println!("cargo:rerun-if-changed={}", dir.join("mlkem").display());
        build_mlkem_native(&dir).map(|()| dir)
    });
    report("has_mlkem_native", "NTTFUSE_PEERS_MLKEM_NATIVE", mlkem);

    let dilithium = peer_dir("DILITHIUM_DIR", "avx2/ntt.S").and_then(|dir| {
        if !x86_64 {
            return Err("not built: the avx2 assembly needs an x86-64 target".into());
        }
        println!("cargo:rerun-if-changed={}", dir.join("avx2").display());
        println!("cargo:rerun-if-changed={}", dir.join("ref").display());
        build_dilithium(&dir).map(|()| dir)
    });
    report("has_dilithium", "NTTFUSE_PEERS_DILITHIUM", dilithium);
}

/// The checkout named by `var`, if set and holding `marker`.
fn peer_dir(var: &str, marker: &str) -> Result<PathBuf, String> {
    let dir = match env::var_os(var) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => return Err(format!("{var} is not set")),
    };
    if !dir.join(marker).is_file() {
        return Err(format!(
            "{var}={} has no {marker} (is it the root of the checkout?)",
            dir.display()
        ));
    }
    Ok(dir)
}

/// Sets the cfg on success; passes "ok <path>" or the reason to the binary.
fn report(cfg: &str, env_name: &str, outcome: Result<PathBuf, String>) {
    match outcome {
        Ok(dir) => {
            println!("cargo:rustc-cfg={cfg}");
            println!("cargo:rustc-env={env_name}=built from {}", dir.display());
        }
        Err(why) => {
            println!("cargo:warning=nttfuse-peers: {why}");
            println!("cargo:rustc-env={env_name}={}", why.replace('\n', " "));
        }
    }
}

/// A `cc` build with the flags every peer gets.
fn base_build() -> cc::Build {
    let mut build = cc::Build::new();
    build
        .opt_level(3)
        .flag("-march=native")
        .warnings(false)
        .cargo_warnings(false);
    build
}

fn build_mlkem_native(dir: &Path) -> Result<(), String> {
    let include = dir.join("mlkem");
    for (prefix, parameter_set, native) in MLKEM_BUILDS {
        let mut build = base_build();
        build
            .include(&include)
            .file("csrc/mlkem_shim.c")
            .define(
                "MLK_CONFIG_PARAMETER_SET",
                parameter_set.to_string().as_str(),
            )
            .define(
                "MLK_CONFIG_NAMESPACE_PREFIX",
                format!("{prefix}_mlk").as_str(),
            )
            .define("MLK_CONFIG_INTERNAL_API_QUALIFIER", "static")
            // The shim calls no randomized API, so no randombytes to link.
            .define("MLK_CONFIG_NO_RANDOMIZED_API", None)
            .define("PEER_SHIM_PREFIX", prefix);
        if native {
            build
                .define("MLK_CONFIG_USE_NATIVE_BACKEND_ARITH", None)
                .file(include.join("mlkem_native_asm.S"));
        }
        build
            .try_compile(prefix)
            .map_err(|e| format!("mlkem-native build {prefix} failed: {e}"))?;
    }
    Ok(())
}

fn build_dilithium(dir: &Path) -> Result<(), String> {
    let avx2 = dir.join("avx2");
    let mut build = base_build();
    build
        .include(&avx2)
        // The assembly pulls in shuffle.inc with the assembler's .include.
        .flag(format!("-Wa,-I{}", avx2.display()).as_str())
        .define("DILITHIUM_MODE", "3")
        .file("csrc/dilithium_avx2_shim.c");
    for file in ["consts.c", "ntt.S", "invntt.S", "pointwise.S", "shuffle.S"] {
        build.file(avx2.join(file));
    }
    build
        .try_compile("peer_dilithium_avx2")
        .map_err(|e| format!("dilithium avx2 build failed: {e}"))?;

    let reference = dir.join("ref");
    let mut build = base_build();
    build
        .include(&reference)
        .define("DILITHIUM_MODE", "3")
        .file("csrc/dilithium_ref_shim.c")
        .file(reference.join("ntt.c"))
        .file(reference.join("reduce.c"));
    build
        .try_compile("peer_dilithium_ref")
        .map_err(|e| format!("dilithium ref build failed: {e}"))?;
    Ok(())
}
