"""python/screen_results against a real job: runs the built screen (SCREEN_EXE) on a small manifest with
all three stages, then checks the package's tables row for row against `screen export`."""

import csv
import io
import os
import subprocess
from pathlib import Path

import h5py
import pytest

import screen_results

SOURCE = Path(__file__).resolve().parents[2]
DEMO = SOURCE / "data" / "demo"
SCREEN = os.environ.get("SCREEN_EXE")

pytestmark = pytest.mark.skipif(
    not SCREEN or not os.access(SCREEN, os.X_OK),
    reason="SCREEN_EXE is not set to the built screen executable (ctest sets it: screen_python_tests)")

# Nussinov with half weights, so that its scores are stored in units of 1/2 (score_scale 2);
# miRanda with a threshold low enough for several hits per pair.
MANIFEST = """\
version: 1
job:
  name: pytest_job
  output: out
queries:
  - name: mirnas
    fasta: {demo}/mirnas.fa
    min_length: 21            # hsa-miR-124-3p (20 nt) is skipped
targets:
  - name: hairpins
    fasta: {demo}/hairpins.fa
  - name: slice
    fasta: slice.fa
stages:
  nussinov:
    pairs: {{AU: 1, CG: 1.5, GU: 0.5}}
  miranda:
    score_threshold: 120
  bpmax:
    target_window: 64
    traceback: top
resources:
  devices: cpu
  cpu_threads: 2
"""


def fasta_names(path):
    return [line[1:].split()[0] for line in Path(path).read_text().splitlines() if line.startswith(">")]


def format_score(score, scale):
    """lib/common/pair_weights.cpp format_score: how screen prints a score of units 1/scale."""
    if scale == 1 or score % scale == 0:
        return str(score // scale)
    return f"{score / scale:.1f}"


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    root = tmp_path_factory.mktemp("job")
    # A 600-nt slice of the demo's SARS-CoV-2 target: the record's header and its first 10 lines.
    lines = (DEMO / "sarscov2_26904-29903.fa").read_text().splitlines()
    (root / "slice.fa").write_text("\n".join(lines[:11]) + "\n")
    (root / "job.yaml").write_text(MANIFEST.format(demo=DEMO))
    run = subprocess.run([SCREEN, "run", "job.yaml"], cwd=root, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return root / "out"


@pytest.fixture(scope="module")
def res(job):
    return screen_results.open_results(job)


def export(job, stage):
    """`screen export JOB --stage STAGE` as a list of dicts (all values str)."""
    out = subprocess.run([SCREEN, "export", str(job), "--stage", stage], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return list(csv.DictReader(io.StringIO(out.stdout), delimiter="\t", quoting=csv.QUOTE_NONE))


def test_every_table_present(res):
    assert res.table_names() == list(screen_results.TABLES)
    tables = res.tables()
    assert list(tables) == list(screen_results.TABLES)
    for name, df in tables.items():
        assert len(df) > 0, name


def test_strings_decoded(res):
    for name, df in res.tables().items():
        for col in df.columns:
            if df[col].dtype == object:
                assert all(isinstance(v, str) for v in df[col]), (name, col)
    assert res.queries()["name"].iloc[0] == "hsa-let-7a-5p"


def test_sequences_and_skipped(res):
    q = res.queries()
    assert list(q["name"]) == [n for n in fasta_names(DEMO / "mirnas.fa") if n != "hsa-miR-124-3p"]
    assert set(q["set"]) == {"mirnas"}
    assert str(q["length"].dtype) == "uint64"
    t = res.targets()
    assert list(t["name"]) == fasta_names(DEMO / "hairpins.fa") + ["NC_045512.2:26904-29903"]
    assert list(t["set"]) == ["hairpins"] * 6 + ["slice"]
    assert t["length"].iloc[-1] == 600
    s = res.skipped()
    assert len(s) == 1
    assert s.iloc[0][["side", "set", "name", "index_in_file", "length"]].tolist() == \
        ["query", "mirnas", "hsa-miR-124-3p", 7, 20]
    assert s.iloc[0]["reason"] == "shorter than min_length 21"
    assert res.shards()["status"].tolist() == ["complete"] * len(res.shards())


def test_manifest_and_provenance(res, job):
    assert res.manifest["job"]["name"] == "pytest_job"
    assert res.manifest["stages"]["miranda"]["score_threshold"] == 120
    assert res.manifest_text == (job.parent / "job.yaml").read_text()
    p = res.provenance
    assert p["job_name"] == "pytest_job"
    assert p["format"] == "screen results"
    assert p["schema_version"] == 2
    assert p["stages"] == ["nussinov", "miranda", "bpmax"] == res.stages
    assert p["input_sides"] == ["query", "target", "target"]
    assert p["input_sets"] == ["mirnas", "hairpins", "slice"]
    assert all(isinstance(h, str) and len(h) == 64 for h in p["input_sha256"])
    assert p["devices"] and all(isinstance(d, str) for d in p["devices"])
    assert res.stage_parameters("nussinov")["score_scale"] == 2
    assert res.stage_parameters("nussinov")["traceback"] is True
    assert res.stage_parameters("miranda")["score_threshold"] == 120.0
    assert res.stage_parameters("bpmax")["traceback"] == "top"


def test_nussinov_equals_export(res, job):
    rows = export(job, "nussinov")
    df = res.nussinov()
    scale = df.attrs["score_scale"]
    assert scale == 2
    assert len(df) == len(rows) == len(res.queries()) + len(res.targets())
    assert any(s % 2 for s in df["score"])  # some half scores, so the scale matters
    for r, (_, d) in zip(rows, df.iterrows()):
        assert [r["side"], r["set"], r["name"], r["length"], r["score"], r["structure"]] == \
            [d["side"], d["set"], d["name"], str(d["length"]), format_score(d["score"], scale), d["structure"]]
        assert d["user_score"] == d["score"] / 2
        assert len(d["structure"]) == d["length"]


def test_miranda_equals_export(res, job):
    rows = export(job, "miranda")
    df = res.miranda_hits()
    assert len(df) == len(rows) > 6
    assert "energy" in rows[0]
    for r, (_, d) in zip(rows, df.iterrows()):
        assert [r["query"], r["target"], r["score"], r["qstart"], r["qend"], r["rstart"], r["rend"],
                r["length"], r["identity"], r["similarity"], r["query_aln"], r["match"], r["target_aln"],
                r["energy"]] == \
            [d["query_name"], d["target_name"], str(d["score"]), str(d["qstart"]), str(d["qend"]),
             str(d["rstart"]), str(d["rend"]), str(d["align_len"]), f"{d['identity']:.2f}",
             f"{d['similarity']:.2f}", d["query_aln"], d["match_aln"], d["target_aln"], f"{d['energy']:.2f}"]


def test_miranda_pairs_summarise_hits(res):
    hits = res.miranda_hits()
    pairs = res.miranda_pairs()
    g = hits.groupby(["query_name", "target_name"], sort=False)["score"]
    summary = g.agg(["sum", "max", "count"]).reset_index()
    assert len(pairs) == len(summary)
    assert (pairs["hit_count"] > 1).any()
    merged = pairs.merge(summary, on=["query_name", "target_name"], validate="one_to_one")
    assert (merged["total_score"] == merged["sum"]).all()
    assert (merged["max_score"] == merged["max"]).all()
    assert (merged["hit_count"] == merged["count"]).all()
    assert (pairs["truncated"] == 0).all()


def test_bpmax_equals_export(res, job):
    rows = export(job, "bpmax")
    scores = res.bpmax_scores()
    assert len(scores) == len(rows) == len(res.queries()) * len(res.targets())
    structures = res.bpmax_structures()[["query", "target", "structure", "inter"]]
    df = scores.merge(structures, on=["query", "target"], how="left").fillna("")
    scale = scores.attrs["score_scale"]
    for r, (_, d) in zip(rows, df.iterrows()):
        assert [r["query"], r["target"], r["score"], r["query_begin"], r["query_end"], r["target_begin"],
                r["target_end"], r["structure"], r["inter"]] == \
            [d["query_name"], d["target_name"], format_score(d["score"], scale), str(d["query_begin"]),
             str(d["query_end"]), str(d["target_begin"]), str(d["target_end"]), d["structure"], d["inter"]]


def test_results_file_path_and_errors(res, job, tmp_path):
    direct = screen_results.open_results(job / "results.h5")
    assert direct.miranda_hits().equals(res.miranda_hits())
    assert direct.provenance == res.provenance
    with pytest.raises(FileNotFoundError):
        screen_results.open_results(tmp_path / "missing")
    with pytest.raises(FileNotFoundError):
        screen_results.open_results(tmp_path)  # a folder without results.h5
    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as f:
        f.attrs["format"] = "something else"
    with pytest.raises(ValueError):
        screen_results.open_results(other)
    with pytest.raises(KeyError):
        res.table("nussinov/nothing")


def test_miranda_pairs_equal_export(res, job):
    rows = export(job, "miranda_pairs")
    df = res.miranda_pairs()
    assert len(df) == len(rows) > 0
    for r, (_, d) in zip(rows, df.iterrows()):
        assert [r["query"], r["target"], r["total_score"], r["max_score"], r["hit_count"], r["truncated"]] == \
            [d["query_name"], d["target_name"], str(d["total_score"]), str(d["max_score"]), str(d["hit_count"]),
             str(d["truncated"])]


def test_demo_job_tables_equal_export(tmp_path):
    """The shipped demo manifest (configs/demo.yaml, on the CPU): every stage's table equals
    `screen export`'s rows, key columns compared cell for cell."""
    text = (SOURCE / "configs" / "demo.yaml").read_text()
    text = text.replace("../data/demo/", f"{DEMO}/").replace("../results/demo", str(tmp_path / "out"))
    text = text.replace("devices: auto", "devices: cpu")
    (tmp_path / "demo.yaml").write_text(text)
    run = subprocess.run([SCREEN, "run", "demo.yaml"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    job = tmp_path / "out"
    res = screen_results.open_results(job)
    assert res.job_name == "demo"
    checks = {
        "nussinov": (res.nussinov(), ["name", "length", "structure"], ["name", "length", "structure"]),
        "miranda": (res.miranda_hits(), ["query", "target", "score", "rstart", "query_aln", "target_aln"],
                    ["query_name", "target_name", "score", "rstart", "query_aln", "target_aln"]),
        "miranda_pairs": (res.miranda_pairs(), ["query", "target", "hit_count"], ["query_name", "target_name", "hit_count"]),
        "bpmax": (res.bpmax_scores(), ["query", "target", "target_begin", "target_end"],
                  ["query_name", "target_name", "target_begin", "target_end"]),
    }
    for stage, (df, export_cols, df_cols) in checks.items():
        rows = export(job, stage)
        assert len(rows) == len(df) > 0, stage
        for r, (_, d) in zip(rows, df.iterrows()):
            assert [r[c] for c in export_cols] == [str(d[c]) for c in df_cols], stage
    # Scores in the manifest's units: export prints user scores.
    for stage, df in (("nussinov", res.nussinov()), ("bpmax", res.bpmax_scores())):
        assert [float(r["score"]) for r in export(job, stage)] == list(df["user_score"]), stage


def test_both_strands_equal_export(tmp_path):
    """targets[].strand: both: the strand column ('+', '-') equals `screen export`'s, and the '-'
    rows are there (the demo's hairpins hold their microRNAs, so their reverse strands hold sites)."""
    text = MANIFEST.format(demo=DEMO).replace("    fasta: {}/hairpins.fa\n".format(DEMO),
                                              "    fasta: {}/hairpins.fa\n    strand: both\n".format(DEMO))
    assert "strand: both" in text
    lines = (DEMO / "sarscov2_26904-29903.fa").read_text().splitlines()
    (tmp_path / "slice.fa").write_text("\n".join(lines[:11]) + "\n")
    (tmp_path / "job.yaml").write_text(text)
    run = subprocess.run([SCREEN, "run", "job.yaml"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    job = tmp_path / "out"
    res = screen_results.open_results(job)
    for stage, df, cols in (("miranda", res.miranda_hits(), ["score", "rstart", "rend"]),
                            ("miranda_pairs", res.miranda_pairs(), ["hit_count", "total_score"]),
                            ("bpmax", res.bpmax_scores(), ["target_begin", "target_end"])):
        rows = export(job, stage)
        assert len(rows) == len(df) > 0, stage
        assert set(df["strand"]) == {"+", "-"}, stage
        assert (df.loc[df["strand"] == "-", "target_set"] == "hairpins").all(), stage
        for r, (_, d) in zip(rows, df.iterrows()):
            assert [r["query"], r["target"], r["strand"]] + [r[c] for c in cols] == \
                [d["query_name"], d["target_name"], d["strand"]] + [str(d[c]) for c in cols], stage
