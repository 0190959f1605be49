"""Read a screen job's results.h5 into pandas.

    import screen_results
    res = screen_results.open_results("results/demo")     # a job folder or a results.h5
    hits = res.miranda_hits()                              # one DataFrame per table
    res.manifest["job"]["name"], res.provenance["git_commit"]

The file's layout is docs/results.md (schema_version 1 or 2); docs/python.md describes this module.
Uses h5py, pandas and yaml (Debian: python3-h5py, python3-pandas, python3-yaml).
"""

import os

import h5py
import numpy as np
import pandas as pd
import yaml

__all__ = ["open_results", "Results", "SCHEMA_VERSIONS", "TABLES"]

# schema_version values this reader knows (docs/results.md): 1 lacks /miranda/hits energy.
SCHEMA_VERSIONS = (1, 2)

# Every table the format defines, by its path in the file (without the leading '/').
TABLES = (
    "queries",
    "targets",
    "skipped",
    "shards",
    "nussinov/queries",
    "nussinov/targets",
    "miranda/hits",
    "miranda/pairs",
    "bpmax/scores",
    "bpmax/structures",
)

# Stage attributes that are booleans stored as u8 0/1.
_BOOL_ATTRS = {"nussinov": ("traceback",), "miranda": ("strict", "energy"), "bpmax": ()}


def _decode(value):
    """An HDF5 attribute as plain Python: str, list of str, int, float."""
    if isinstance(value, h5py.Empty):  # an empty string list: a null dataspace
        return []
    if isinstance(value, (bytes, np.bytes_)):
        return bytes(value).decode("utf-8")
    if isinstance(value, np.ndarray):
        return [_decode(v) for v in value.tolist()]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def _strings(group, name):
    """The compact string column NAME of a table group (NAME_bytes, NAME_end) as a list of str."""
    data = group[name + "_bytes"][()].tobytes()
    ends = group[name + "_end"][()].astype(np.int64)
    begins = np.concatenate(([0], ends[:-1]))
    return [data[b:e].decode("utf-8") for b, e in zip(begins.tolist(), ends.tolist())]


def _read_table(group):
    """A table group: one column per entry of its `columns` attribute, in that order."""
    columns = {}
    for name in _decode(group.attrs["columns"]):
        if name in group:
            columns[name] = group[name][()]
        else:
            columns[name] = pd.Series(_strings(group, name), dtype=object)
    return pd.DataFrame(columns)


def _insert_after(df, after, new_columns):
    """Insert the columns of dict new_columns (name -> array) right after column `after`."""
    at = df.columns.get_loc(after) + 1
    for k, (name, values) in enumerate(new_columns.items()):
        df.insert(at + k, name, values)


def _find_results(path):
    path = os.fspath(path)
    if os.path.isdir(path):
        candidate = os.path.join(path, "results.h5")
        if not os.path.exists(candidate):
            if os.path.exists(os.path.join(path, "run.info")):
                raise FileNotFoundError(f"{path}: the job's results are not merged yet (no results.h5); "
                                        f"`screen merge {path}` merges finished shards")
            raise FileNotFoundError(f"{path}: not a job's output folder (no results.h5)")
        return candidate
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file or folder")
    return path


def open_results(path):
    """Open a job's output folder (its results.h5) or a results.h5 file."""
    return Results(path)


class Results:
    """The tables, manifest and provenance of one results.h5.

    Tables are read when asked for (and kept). Columns are the file's, with its dtypes and units
    (docs/results.md); strings are str. Added columns: in the stage tables, the names of the rows
    that index columns point at (`query_set`, `query_name` after `query`, `target_set`,
    `target_name` after `target`, `set`, `name`, `length` after Nussinov's `sequence`), and
    `user_score` (= score / score_scale, in the manifest's pair-weight units) after the integer
    `score` of the Nussinov and BPMax tables. The miRanda and BPMax tables' `strand` is '+' (the
    target as written) or '-' (its reverse complement, `strand: both`; positions are still on the
    forward strand), '+' throughout for files written before the column existed. Each stage
    table's DataFrame.attrs holds its stage's parameters (see stage_parameters).
    """

    def __init__(self, path):
        self.path = _find_results(path)
        with h5py.File(self.path, "r") as f:
            attrs = {k: _decode(v) for k, v in f.attrs.items()}
            if attrs.get("format") != "screen results":
                raise ValueError(f"{self.path}: not a screen results file (format {attrs.get('format')!r})")
            if attrs.get("schema_version") not in SCHEMA_VERSIONS:
                raise ValueError(f"{self.path}: schema_version {attrs.get('schema_version')!r} is not one this "
                                 f"reader knows ({', '.join(map(str, SCHEMA_VERSIONS))})")
            self._present = [t for t in TABLES if t in f and isinstance(f[t], h5py.Group)
                             and "columns" in f[t].attrs]
            self._params = {s: self._stage_attrs(f, s) for s in ("nussinov", "miranda", "bpmax") if s in f}
        #: every root attribute of the file, decoded (str, list of str, int): the job's provenance
        self.provenance = attrs
        #: the manifest text exactly as run
        self.manifest_text = attrs.get("manifest", "")
        #: the manifest parsed as YAML (a dict)
        self.manifest = yaml.safe_load(self.manifest_text) or {}
        self._cache = {}

    @staticmethod
    def _stage_attrs(f, stage):
        params = {k: _decode(v) for k, v in f[stage].attrs.items()}
        for k in _BOOL_ATTRS[stage]:
            if k in params:
                params[k] = bool(params[k])
        return params

    def __repr__(self):
        return f"<screen results {self.job_name!r}: {', '.join(self.stages)} ({self.path})>"

    @property
    def job_name(self):
        return self.provenance.get("job_name")

    @property
    def stages(self):
        """The stages the job ran, in manifest order."""
        return list(self.provenance.get("stages", []))

    def stage_parameters(self, stage):
        """The parameters stored on a stage's group (booleans as bool); KeyError if it did not run."""
        return dict(self._params[stage])

    def table_names(self):
        """The tables in this file, by path (e.g. 'miranda/hits')."""
        return list(self._present)

    def table(self, name):
        """One table by its path in the file ('queries', 'miranda/hits', ...), names joined in."""
        name = name.strip("/")
        if name not in self._present:
            raise KeyError(f"{self.path}: no table {name!r} (present: {', '.join(self._present)})")
        if name not in self._cache:
            self._cache[name] = self._load(name)
        return self._cache[name].copy()

    def tables(self):
        """Every table of the file: dict name -> DataFrame."""
        return {name: self.table(name) for name in self._present}

    def _load(self, name):
        with h5py.File(self.path, "r") as f:
            df = _read_table(f[name])
        stage = name.split("/")[0] if "/" in name else None
        if stage is None:
            return df
        df.attrs.update(self._params.get(stage, {}))
        if stage == "nussinov":
            seqs = self.table("queries" if name.endswith("queries") else "targets")
            rows = df["sequence"].to_numpy(dtype=np.int64)
            _insert_after(df, "sequence", {c: seqs[c].to_numpy()[rows] for c in ("set", "name", "length")})
        else:
            # strand 0/1 on disk, '+'/'-' here (as `screen export` writes it); absent in older files.
            strand = df.pop("strand").to_numpy() if "strand" in df.columns else np.zeros(len(df), dtype=np.uint8)
            for side, seq_table in (("query", "queries"), ("target", "targets")):
                seqs = self.table(seq_table)
                rows = df[side].to_numpy(dtype=np.int64)
                _insert_after(df, side, {f"{side}_set": seqs["set"].to_numpy()[rows],
                                         f"{side}_name": seqs["name"].to_numpy()[rows]})
            _insert_after(df, "target_name", {"strand": np.where(strand == 0, "+", "-").astype(object)})
        if stage in ("nussinov", "bpmax") and "score" in df.columns:
            scale = int(self._params[stage].get("score_scale", 1))
            _insert_after(df, "score", {"user_score": df["score"].to_numpy() / scale})
        return df

    # One accessor per table.
    def queries(self):
        return self.table("queries")

    def targets(self):
        return self.table("targets")

    def skipped(self):
        return self.table("skipped")

    def shards(self):
        return self.table("shards")

    def nussinov_queries(self):
        return self.table("nussinov/queries")

    def nussinov_targets(self):
        return self.table("nussinov/targets")

    def nussinov(self):
        """Both Nussinov tables, queries then targets, with a `side` column (as `screen export` lists them)."""
        parts = []
        for side in ("query", "target"):
            name = "nussinov/queries" if side == "query" else "nussinov/targets"
            df = self.table(name)
            df.insert(0, "side", side)
            parts.append(df)
        out = pd.concat(parts, ignore_index=True)
        out.attrs.update(self._params["nussinov"])
        return out

    def miranda_hits(self):
        return self.table("miranda/hits")

    def miranda_pairs(self):
        return self.table("miranda/pairs")

    def bpmax_scores(self):
        return self.table("bpmax/scores")

    def bpmax_structures(self):
        return self.table("bpmax/structures")
