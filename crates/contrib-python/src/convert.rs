//! Values across the boundary, as JSON read and written by Python's
//! `json` module on one side and serde on the other.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::errors::InputError;

/// A runtime value as the plain Python value (`dict`, `list`, `str`, …)
/// its JSON reads as.
pub fn to_py<T: Serialize + ?Sized>(py: Python<'_>, value: &T) -> PyResult<PyObject> {
    let text = serde_json::to_string(value)
        .map_err(|error| InputError::new_err(format!("cannot hand back a value: {error}")))?;
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}

/// A Python value read as the runtime's `T`; `what` names it in the
/// error a caller sees.
pub fn from_py<T: DeserializeOwned>(value: &Bound<'_, PyAny>, what: &str) -> PyResult<T> {
    let text = json_text(value, what)?;
    serde_json::from_str(&text).map_err(|error| InputError::new_err(format!("{what}: {error}")))
}

/// A Python value as JSON text; dates and times (anything with
/// `isoformat`) are written as RFC 3339.
fn json_text(value: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    let py = value.py();
    let kwargs = PyDict::new(py);
    kwargs.set_item("default", py.eval(c"lambda v: v.isoformat()", None, None)?)?;
    py.import("json")?
        .call_method("dumps", (value,), Some(&kwargs))
        .and_then(|text| text.extract())
        .map_err(|error| InputError::new_err(format!("{what} is not JSON: {error}")))
}

/// An instant: a `str` in RFC 3339, or a `datetime` with its offset.
pub fn instant(value: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    if value.hasattr("isoformat")? {
        let text: String = value.call_method0("isoformat")?.extract()?;
        return Ok(serde_json::Value::String(text));
    }
    let text: String = value
        .extract()
        .map_err(|_| InputError::new_err("`at` is an RFC 3339 string or a datetime"))?;
    Ok(serde_json::Value::String(text))
}

/// The input of a turn or a request: `at` and the keyword arguments
/// given, read as `T` (so an unknown keyword is an error).
pub fn input<T: DeserializeOwned>(
    at: &Bound<'_, PyAny>,
    fields: Option<&Bound<'_, PyDict>>,
    what: &str,
) -> PyResult<T> {
    let mut object = serde_json::Map::new();
    if let Some(fields) = fields {
        let value: serde_json::Value = from_py(fields.as_any(), what)?;
        if let serde_json::Value::Object(map) = value {
            object = map;
        }
    }
    object.insert("at".to_string(), instant(at)?);
    serde_json::from_value(serde_json::Value::Object(object))
        .map_err(|error| InputError::new_err(format!("{what}: {error}")))
}
