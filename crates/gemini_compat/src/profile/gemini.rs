//! `gemini`: the Gemini-safe schema as the transform makes it, for every client.

use super::Profile;

/// The profile, as the registry ([`super::PROFILES`]) lists it.
pub(super) const PROFILE: Profile = Profile {
    name: "gemini",
    summary: "Gemini-safe, for every client (the default)",
    served: || "the rules above (R1–R13)".into(),
    arguments_back: "`coerce_arguments` as above",
    auto_for_clients: &[],
    rewrite: None,
};
