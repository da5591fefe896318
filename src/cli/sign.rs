//! `contrib keygen`, `contrib sign`, `contrib verify`.

use std::path::PathBuf;

use clap::Args;

use super::{fail, Outcome};
use crate::bundle::sign::{self, DetachedSignature};
use crate::bundle::Bundle;
use crate::fs::{self, Mode};
use crate::limits::files::KEY;

#[derive(Args)]
pub struct KeygenArgs {
    /// Writes `NAME.key` (secret) and `NAME.pub`.
    #[arg(long, default_value = "contrib")]
    out: PathBuf,
}

#[derive(Args)]
pub struct SignArgs {
    bundle: PathBuf,
    /// The secret key file.
    #[arg(long)]
    key: PathBuf,
}

#[derive(Args)]
pub struct VerifyArgs {
    bundle: PathBuf,
    /// The public key file.
    #[arg(long)]
    pubkey: PathBuf,
}

pub fn keygen(args: &KeygenArgs) -> Outcome {
    let secret_path = args.out.with_extension("key");
    let public_path = args.out.with_extension("pub");
    for path in [&secret_path, &public_path] {
        if path.exists() {
            return fail(format!(
                "`{}` already exists; keys are never overwritten",
                path.display()
            ));
        }
    }
    let (secret, public, id) = sign::generate();
    // The secret key is the owner's alone; the public key is meant to be
    // shared, so it follows the umask like any other file.
    if let Err(message) = fs::write_new(&secret_path, secret.as_bytes(), Mode::Private) {
        return fail(message);
    }
    if let Err(message) = fs::write_new(&public_path, public.as_bytes(), Mode::Shared) {
        return fail(message);
    }
    println!(
        "{id}: secret key {}, public key {}",
        secret_path.display(),
        public_path.display()
    );
    Outcome::Clean
}

pub fn sign(args: &SignArgs) -> Outcome {
    let bundle = match Bundle::load(&args.bundle) {
        Ok(bundle) => bundle,
        Err(crate::bundle::LoadError::Io(message)) => return fail(message),
        Err(error) => return fail(format!("`{}`: {error}", args.bundle.display())),
    };
    let key = match fs::read_text(&args.key, KEY) {
        Ok(text) => match sign::read_secret(&text) {
            Ok(key) => key,
            Err(message) => return fail(format!("`{}`: {message}", args.key.display())),
        },
        Err(message) => return fail(message),
    };
    let signature = sign::sign(&key, bundle.digest.as_deref().unwrap_or_default());
    let path = sign::signature_path(&args.bundle);
    let text = serde_json::to_string_pretty(&signature).unwrap_or_default() + "\n";
    if let Err(message) = fs::write_atomically(&path, text.as_bytes()) {
        return fail(message);
    }
    println!(
        "signed {} with {} → {}",
        bundle.id(),
        signature.key_id,
        path.display()
    );
    Outcome::Clean
}

/// Fails closed: anything but a valid signature by this key is exit 1.
pub fn verify(args: &VerifyArgs) -> Outcome {
    let result = (|| {
        let bundle = Bundle::load(&args.bundle).map_err(|error| error.to_string())?;
        let key_text = fs::read_text(&args.pubkey, KEY)?;
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
            println!("verified {id}: signed by {key}");
            Outcome::Clean
        }
        Err(message) => {
            eprintln!("error: verification failed: {message}");
            Outcome::Problems
        }
    }
}
