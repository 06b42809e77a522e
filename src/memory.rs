//! Handing freed heap memory back to the system.

/// Returns freed heap memory to the system (glibc only; other allocators do it themselves).
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // glibc's malloc_trim exists only as an FFI call.
    #[allow(unsafe_code)]
    // SAFETY: malloc_trim only walks the allocator's own free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}
