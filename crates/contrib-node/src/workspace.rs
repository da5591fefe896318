//! A workspace opened for hosting.

use std::rc::Rc;

use napi::bindgen_prelude::Either;
use napi_derive::napi;
use serde_json::Value;

use crate::failure;

/// `contrib_runtime::Workspace`, shared with the conversations it starts.
#[napi]
pub struct NativeWorkspace {
    pub(crate) inner: Rc<contrib_runtime::Workspace>,
}

/// Opens the workspace in `folder`, with the cache profiles in `profiles`
/// when given; a refusal comes back as its description.
#[napi]
pub fn open_workspace(folder: String, profiles: Option<String>) -> Either<NativeWorkspace, Value> {
    let opened = contrib_runtime::Workspace::open(&folder).and_then(|workspace| match profiles {
        Some(path) => workspace.with_profiles(path),
        None => Ok(workspace),
    });
    match opened {
        Ok(workspace) => Either::A(NativeWorkspace {
            inner: Rc::new(workspace),
        }),
        Err(error) => Either::B(failure::from_runtime(&error)),
    }
}

#[napi]
impl NativeWorkspace {
    /// The folder it was opened from.
    #[napi]
    pub fn folder(&self) -> String {
        self.inner.folder().display().to_string()
    }

    /// The pinned versions loading refused, each with its reason.
    #[napi]
    pub fn refused_at_load(&self) -> Vec<String> {
        self.inner.refused_at_load().to_vec()
    }

    /// The plugin versions it composes, as `scope/name@version`.
    #[napi]
    pub fn plugins(&self) -> Vec<String> {
        self.inner.plugins()
    }
}
