//! `contrib keygen`, `contrib sign`, `contrib verify`.

use std::path::{Path, PathBuf};

use crate::bundle::sign::SigningKey;

use clap::Args;

use super::output::status;
use super::{fail, Outcome};
use crate::bundle::sign::{self, DetachedSignature};
use crate::bundle::Bundle;
use crate::fs::{self, Mode};
use crate::limits::files::KEY;

#[derive(Args)]
pub(super) struct KeygenArgs {
    /// Writes `NAME.key` (secret) and `NAME.pub`.
    #[arg(long, value_name = "NAME", default_value = "contrib")]
    out: PathBuf,
}

#[derive(Args)]
pub(super) struct SignArgs {
    /// The bundle to sign (`*.bundle.json`).
    bundle: PathBuf,
    /// The secret key file.
    #[arg(long, value_name = "FILE")]
    key: PathBuf,
}

#[derive(Args)]
pub(super) struct VerifyArgs {
    /// The bundle to verify; its signature is `BUNDLE.sig`.
    bundle: PathBuf,
    /// The public key file (`NAME.pub`); `--pubkey` is the same flag.
    #[arg(long, alias = "pubkey", value_name = "FILE")]
    key: PathBuf,
}

pub(super) fn keygen(args: &KeygenArgs) -> Outcome {
    // Appended, not put in place of an extension: `--out keys/v1.2`
    // writes `keys/v1.2.key`, not `keys/v1.key`.
    let with = |extension: &str| {
        let mut path = args.out.clone().into_os_string();
        path.push(extension);
        PathBuf::from(path)
    };
    let secret_path = with(".key");
    let public_path = with(".pub");
    for path in [&secret_path, &public_path] {
        if path.exists() {
            return fail(format!(
                "`{}` already exists; keys are never overwritten",
                path.display()
            ));
        }
    }
    if let Some(folder) = secret_path
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
    {
        if let Err(message) = fs::create_folder(folder) {
            return fail(message);
        }
    }
    let (secret, public, id) = match sign::generate() {
        Ok(pair) => pair,
        Err(message) => return fail(message),
    };
    // The secret key is the owner's alone; the public key is meant to be
    // shared, so it follows the umask like any other file.
    if let Err(message) = fs::write_new(&secret_path, secret.as_bytes(), Mode::Private) {
        return fail(message);
    }
    if let Err(message) = fs::write_new(&public_path, public.as_bytes(), Mode::Shared) {
        return fail(message);
    }
    status(format_args!(
        "{id}: secret key {}, public key {}",
        secret_path.display(),
        public_path.display()
    ));
    Outcome::Clean
}

pub(super) fn sign(args: &SignArgs) -> Outcome {
    let bundle = match Bundle::load(&args.bundle) {
        Ok(bundle) => bundle,
        Err(crate::bundle::LoadError::Io(message)) => return fail(message),
        Err(error) => return fail(format!("`{}`: {error}", args.bundle.display())),
    };
    let result =
        read_secret_key(&args.key).and_then(|key| write_signature(&args.bundle, &bundle, &key));
    match result {
        Ok((path, key_id)) => {
            status(format_args!(
                "signed {} with {key_id} → {}",
                bundle.id(),
                path.display()
            ));
            Outcome::Clean
        }
        Err(message) => fail(message),
    }
}

/// The secret key in the file at `path`.
pub(super) fn read_secret_key(path: &Path) -> Result<SigningKey, String> {
    let text = fs::read_text(path, KEY)?;
    sign::read_secret(&text).map_err(|message| format!("`{}`: {message}", path.display()))
}

/// Signs `bundle`'s digest with `key` into `BUNDLE.sig` beside the bundle
/// file; where it wrote, and the key's id.
pub(super) fn write_signature(
    bundle_file: &Path,
    bundle: &Bundle,
    key: &SigningKey,
) -> Result<(PathBuf, String), String> {
    let signature = sign::sign(key, bundle.digest.as_deref().unwrap_or_default());
    let path = sign::signature_path(bundle_file);
    let text = serde_json::to_string_pretty(&signature).unwrap_or_default() + "\n";
    fs::write_atomically(&path, text.as_bytes())?;
    Ok((path, signature.key_id))
}

/// Fails closed: anything but a valid signature by this key is exit 1.
pub(super) fn verify(args: &VerifyArgs) -> Outcome {
    let result = (|| {
        let bundle = Bundle::load(&args.bundle).map_err(|error| error.to_string())?;
        let key_text = fs::read_text(&args.key, KEY)?;
        let key = sign::read_public(&key_text)?;
        let path = sign::signature_path(&args.bundle);
        let text = fs::read_text(&path, KEY)
            .map_err(|_| format!("there is no readable signature `{}`", path.display()))?;
        let signature: DetachedSignature = serde_json::from_str(&text)
            .map_err(|_| "the signature file is malformed".to_string())?;
        sign::verify(
            &key,
            &signature,
            bundle.digest.as_deref().unwrap_or_default(),
        )?;
        Ok::<_, String>((bundle.id(), signature.key_id))
    })();
    match result {
        Ok((id, key)) => {
            status(format_args!("verified {id}: signed by {key}"));
            Outcome::Clean
        }
        Err(message) => {
            status(format_args!("error: verification failed: {message}"));
            Outcome::Problems
        }
    }
}
