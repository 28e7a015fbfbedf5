"""Builds a tiny, deterministic NLI "model" directory for the judge tests.

Nothing is downloaded: the tokenizer is a WordLevel vocabulary with a BERT-style
pair template, and the ONNX graph is written op by op with ``onnx.helper``.

The graph computes, for each batch row, from the premise tokens P and the claim
tokens H (both as bags of one-hot vectors, padding masked out):

    coverage = |content words of H also in P| / |content words of H|
    negated  = |[not in P] - [not in H]|          (polarity differs)

    contradiction = 6 * coverage * negated
    entailment    = 6 * coverage - 6 * negated
    neutral       = 4.5          (so a partial match, coverage < 0.75, is neutral)

so a window holding every claim word entails, the same with a flipped "not"
contradicts, and a window without the claim's words is neutral. Outputs are in
the order contradiction, entailment, neutral, which is NOT the usual order, so
a judge that ignored config.json's id2label would get the labels wrong.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.normalizers import Lowercase
from tokenizers.pre_tokenizers import Whitespace
from tokenizers.processors import TemplateProcessing

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
WORDS = (
    "the sky is blue green not grass sea wet dry alpha beta gamma delta epsilon zeta "
    "eta theta iota kappa lambda revenue rose fell in 2026"
).split()
VOCAB = {token: i for i, token in enumerate(SPECIALS + WORDS)}
OUTPUT_ORDER = ("contradiction", "entailment", "neutral")
ID2LABEL = {str(i): label for i, label in enumerate(OUTPUT_ORDER)}


def build_tokenizer() -> Tokenizer:
    tok = Tokenizer(WordLevel(VOCAB, unk_token="[UNK]"))
    tok.normalizer = Lowercase()
    tok.pre_tokenizer = Whitespace()
    tok.post_processor = TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", VOCAB["[CLS]"]), ("[SEP]", VOCAB["[SEP]"])],
    )
    return tok


def build_graph(*, token_type_ids: bool = True) -> onnx.ModelProto:
    """The tiny NLI graph. Without ``token_type_ids`` the claim is found by counting
    [SEP] tokens (CumSum), as a RoBERTa-style export would have to."""
    v = len(VOCAB)
    content = np.zeros((v, 1), dtype=np.float32)
    for word in WORDS:
        if word != "not":
            content[VOCAB[word], 0] = 1.0
    not_vec = np.zeros((v, 1), dtype=np.float32)
    not_vec[VOCAB["not"], 0] = 1.0
    # Feature columns: coverage, negated, coverage*negated; rows follow OUTPUT_ORDER.
    weights = np.array([[0.0, 6.0, 0.0], [0.0, -6.0, 0.0], [6.0, 0.0, 0.0]], dtype=np.float32)
    bias = np.array([0.0, 0.0, 4.5], dtype=np.float32)
    inits = [
        numpy_helper.from_array(np.eye(v, dtype=np.float32), "onehot"),
        numpy_helper.from_array(content, "content"),
        numpy_helper.from_array(not_vec, "not_vec"),
        numpy_helper.from_array(weights, "W"),
        numpy_helper.from_array(bias, "b"),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "axis1"),
        numpy_helper.from_array(np.array([-1], dtype=np.int64), "axis_last"),
        numpy_helper.from_array(np.array(1.0, dtype=np.float32), "one"),
    ]
    n = helper.make_node
    nodes = [
        n("Gather", ["onehot", "input_ids"], ["tokens"]),  # [B,S,V]
        n("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),  # [B,S]
    ]
    if token_type_ids:
        nodes.append(n("Cast", ["token_type_ids"], ["segment"], to=TensorProto.FLOAT))
    else:
        # Claim tokens come after the first [SEP]; the final [SEP] is not content.
        inits += [
            numpy_helper.from_array(np.array(VOCAB["[SEP]"], dtype=np.int64), "sep_id"),
            numpy_helper.from_array(np.array(1, dtype=np.int64), "axis1_scalar"),
        ]
        nodes += [
            n("Equal", ["input_ids", "sep_id"], ["is_sep"]),
            n("Cast", ["is_sep"], ["is_sep_f"], to=TensorProto.FLOAT),
            n("CumSum", ["is_sep_f", "axis1_scalar"], ["seps_so_far"], exclusive=1),
            n("Min", ["seps_so_far", "one"], ["segment"]),
        ]
    nodes += [
        n("Mul", ["mask", "segment"], ["claim_w"]),
        n("Sub", ["mask", "claim_w"], ["premise_w"]),
        n("Unsqueeze", ["claim_w", "axis_last"], ["claim_w3"]),
        n("Unsqueeze", ["premise_w", "axis_last"], ["premise_w3"]),
        n("Mul", ["tokens", "claim_w3"], ["claim_tokens"]),
        n("Mul", ["tokens", "premise_w3"], ["premise_tokens"]),
        n("ReduceMax", ["claim_tokens", "axis1"], ["H"], keepdims=0),  # [B,V]
        n("ReduceMax", ["premise_tokens", "axis1"], ["P"], keepdims=0),
        n("Mul", ["P", "H"], ["PH"]),
        n("MatMul", ["PH", "content"], ["shared"]),  # [B,1]
        n("MatMul", ["H", "content"], ["claim_words"]),
        n("Max", ["claim_words", "one"], ["denominator"]),
        n("Div", ["shared", "denominator"], ["coverage"]),
        n("MatMul", ["P", "not_vec"], ["p_not"]),
        n("MatMul", ["H", "not_vec"], ["h_not"]),
        n("Sub", ["p_not", "h_not"], ["not_diff"]),
        n("Abs", ["not_diff"], ["negated"]),
        n("Mul", ["coverage", "negated"], ["both"]),
        n("Concat", ["coverage", "negated", "both"], ["features"], axis=1),  # [B,3]
        n("MatMul", ["features", "W"], ["scores"]),
        n("Add", ["scores", "b"], ["logits"]),
    ]
    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"])
    mask = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"])
    inputs = [ids, mask]
    if token_type_ids:
        inputs.append(
            helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, ["batch", "seq"])
        )
    logits = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 3])
    graph = helper.make_graph(nodes, "tiny_nli", inputs, [logits], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8  # old enough for any onnxruntime the nli extra allows
    onnx.checker.check_model(model)
    return model


def build_model_dir(
    path: Path,
    *,
    id2label: dict[str, str] | None = None,
    token_type_ids: bool = True,
) -> Path:
    """Write model.onnx, tokenizer.json and config.json into ``path``; return it."""
    path.mkdir(parents=True, exist_ok=True)
    build_tokenizer().save(str(path / "tokenizer.json"))
    onnx.save(build_graph(token_type_ids=token_type_ids), str(path / "model.onnx"))
    config = {"model_type": "tiny-nli", "id2label": id2label if id2label is not None else ID2LABEL}
    (path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return path
