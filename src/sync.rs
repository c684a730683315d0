//! A mutex for the crate's short critical sections (scratch pools, the
//! Cantor basis cache): `std`'s with the `std` feature (a poisoned lock is
//! taken over: every section leaves its data valid), a spin lock without it.

#[cfg(feature = "std")]
mod imp {
    /// A mutual-exclusion lock.
    #[derive(Debug, Default)]
    pub(crate) struct Mutex<T>(std::sync::Mutex<T>);

    impl<T> Mutex<T> {
        pub(crate) const fn new(value: T) -> Self {
            Self(std::sync::Mutex::new(value))
        }

        /// Locks, taking over a lock a panicking holder poisoned.
        pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, T> {
            self.0.lock().unwrap_or_else(|e| e.into_inner())
        }
    }
}

#[cfg(not(feature = "std"))]
mod imp {
    /// A spin lock (no OS to park on): `spin`'s, so that no `unsafe` lives
    /// outside the kernels.
    #[derive(Debug, Default)]
    pub(crate) struct Mutex<T>(spin::Mutex<T>);

    impl<T> Mutex<T> {
        pub(crate) const fn new(value: T) -> Self {
            Self(spin::Mutex::new(value))
        }

        /// Spins until the lock is free.
        pub(crate) fn lock(&self) -> spin::MutexGuard<'_, T> {
            self.0.lock()
        }
    }
}

pub(crate) use imp::Mutex;
