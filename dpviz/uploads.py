"""Uploaded files (embeddings, corpora), kept under the cache directory by content and referred
to as ``upload:NAME`` (a value parameters, and so links, can carry), under ``$DPVIZ_UPLOAD_QUOTA_MB``."""

from __future__ import annotations

import hashlib
from pathlib import Path

from dpviz.errors import InputError
from dpviz.storage import UPLOADS_QUOTA_MB, _touch, cache_dir, enforce_quota, quota_bytes

UPLOAD_PREFIX = "upload:"


def save_upload(data: bytes, filename: str) -> str:
    """Keep an uploaded file under the cache directory, named by its content; returns the
    reference ``upload:NAME`` that parameters (and so links) carry."""
    suffix = filename.rsplit(".", 1)[-1].lower() if "." in filename else "bin"
    name = f"{hashlib.sha256(data).hexdigest()[:16]}.{suffix}"
    path = cache_dir() / "uploads" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        _touch(path)
    else:
        path.write_bytes(data)
        enforce_quota(path.parent, quota_bytes("DPVIZ_UPLOAD_QUOTA_MB", UPLOADS_QUOTA_MB), keep=path)
    return UPLOAD_PREFIX + name


def existing_upload(ref: str) -> Path:
    """The file behind ``upload:NAME``, which must still be here (the uploads quota deletes old
    ones, and a link may come from another server); ValueError with a sentence otherwise."""
    path = upload_path(ref)
    if not path.is_file():
        raise InputError(f"The uploaded file {path.name!r} is not on this server any more: upload it again.")
    return path


def upload_path(ref: str) -> Path:
    """The file behind ``upload:NAME``; a name that could leave the uploads folder is refused."""
    name = ref[len(UPLOAD_PREFIX) :] if ref.startswith(UPLOAD_PREFIX) else ref
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise InputError("An upload reference must be a plain file name.")
    return cache_dir() / "uploads" / name
