#!/usr/bin/env python3
"""k8s_manifest.py DIR — checks contrib/kubernetes without a cluster: the shards' Indexed Job
(iopsy-shards.yaml) and the finish Job (iopsy-finish.yaml) have the fields a sharded run needs
and agree with each other: JOB_COMPLETION_INDEX -> --shard K/N with N = completions, one run id
for both, the same input, output folder and history, a history URI without a password and the
password from a pgpass Secret mounted 0600, restartPolicy Never. Parses with PyYAML
(python3-yaml) when installed, else checks the text line by line. Exit 0 when all hold."""
import os
import re
import sys
from urllib.parse import urlsplit, parse_qs

d = sys.argv[1]
shards_path = os.path.join(d, "iopsy-shards.yaml")
finish_path = os.path.join(d, "iopsy-finish.yaml")
errors = []


def need(cond, what):
    if not cond:
        errors.append(what)


def uri_ok(u):
    p = urlsplit(u)
    return p.scheme in ("postgresql", "postgres") and p.password is None and "password" not in parse_qs(p.query)


def opt(args, name):
    return args[args.index(name) + 1] if name in args and args.index(name) + 1 < len(args) else None


try:
    import yaml
except ImportError:
    yaml = None

if yaml:
    sh = yaml.safe_load(open(shards_path))
    fi = yaml.safe_load(open(finish_path))
    for name, m in (("shards", sh), ("finish", fi)):
        need(m.get("apiVersion") == "batch/v1" and m.get("kind") == "Job", name + ": a batch/v1 Job")
        need("${IOPSY_RUN_ID}" in m["metadata"]["name"], name + ": the Job's name carries the run id")
        pod = m["spec"]["template"]["spec"]
        need(pod.get("restartPolicy") == "Never", name + ": restartPolicy Never (a pod is retried as a new pod)")
        need(len(pod["containers"]) == 1, name + ": one container")
        c = pod["containers"][0]
        env = {e["name"]: e for e in c.get("env", [])}
        need(env.get("IOPSY_RUN_ID", {}).get("value") == "${IOPSY_RUN_ID}", name + ": IOPSY_RUN_ID from the submission")
        need("PGPASSFILE" in env, name + ": PGPASSFILE set")
        mounts = {v["name"]: v for v in c.get("volumeMounts", [])}
        vols = {v["name"]: v for v in pod.get("volumes", [])}
        pgpass = env.get("PGPASSFILE", {}).get("value", "")
        sec = [v for n, v in mounts.items() if pgpass.startswith(v["mountPath"] + "/") and "secret" in vols.get(n, {})]
        need(sec and vols[sec[0]["name"]]["secret"].get("defaultMode") == 0o600,
             name + ": the pgpass file comes from a Secret mounted with mode 0600 (libpq refuses a readable one)")
        need("data" in vols and "persistentVolumeClaim" in vols["data"] and "data" in mounts, name + ": the shared data volume")
        m["_args"] = [str(a) for a in c["args"]]
        m["_claim"] = vols.get("data", {}).get("persistentVolumeClaim", {}).get("claimName")
    a, b = sh["_args"], fi["_args"]
    spec = sh["spec"]
    need(spec.get("completionMode") == "Indexed", "shards: completionMode Indexed")
    n = spec.get("completions")
    need(isinstance(n, int) and n >= 1, "shards: completions is the number of shards")
    need(isinstance(spec.get("parallelism"), int) and 1 <= spec["parallelism"] <= (n or 0), "shards: 1 <= parallelism <= completions")
    need(opt(a, "--shard") == "$(JOB_COMPLETION_INDEX)/%s" % n, "shards: --shard $(JOB_COMPLETION_INDEX)/N with N = completions (%s)" % n)
    envs = {e["name"]: e for e in sh["spec"]["template"]["spec"]["containers"][0]["env"]}
    idx = envs.get("JOB_COMPLETION_INDEX", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath", "")
    need(idx == "metadata.annotations['batch.kubernetes.io/job-completion-index']", "shards: JOB_COMPLETION_INDEX from the pod's annotation")
    need("--finish" not in a and "--shard" not in b and "--finish" in b, "--shard only in the shards, --finish only in the finish Job")
    need(fi["spec"].get("completions", 1) == 1 and "completionMode" not in fi["spec"], "finish: one pod")
    for name, x in (("shards", a), ("finish", b)):
        need(x[0] == "batch", name + ": runs iopsy batch")
        need(opt(x, "--run-id") == "$(IOPSY_RUN_ID)", name + ": --run-id $(IOPSY_RUN_ID)")
        need(opt(x, "--history") and uri_ok(opt(x, "--history")), name + ": --history postgresql://... without a password")
    need(a[1] == b[1], "the same INPUT for the shards and the finish step")
    need(opt(a, "--out") == opt(b, "--out") and opt(a, "--out"), "the same --out DIR")
    need(opt(a, "--history") == opt(b, "--history"), "the same --history")
    need(sh["_claim"] == fi["_claim"] and sh["_claim"], "the same volume claim")
    need("--mail-to" in b, "finish: mails the index")
else:
    st, ft = open(shards_path).read(), open(finish_path).read()
    comp = re.search(r"^\s+completions:\s*(\d+)\s*$", st, re.M)
    need(re.search(r"^kind: Job$", st, re.M) and re.search(r"^kind: Job$", ft, re.M), "two Jobs")
    need(re.search(r"^\s+completionMode: Indexed\s*$", st, re.M), "shards: completionMode Indexed")
    need(comp and ("- $(JOB_COMPLETION_INDEX)/%s\n" % comp.group(1)) in st, "shards: --shard $(JOB_COMPLETION_INDEX)/completions")
    need("batch.kubernetes.io/job-completion-index" in st, "shards: JOB_COMPLETION_INDEX from the annotation")
    for name, t in (("shards", st), ("finish", ft)):
        need("- --run-id\n" in t and "- $(IOPSY_RUN_ID)\n" in t, name + ": --run-id $(IOPSY_RUN_ID)")
        need(re.search(r"^\s+restartPolicy: Never\s*$", t, re.M), name + ": restartPolicy Never")
        need("PGPASSFILE" in t and re.search(r"defaultMode: 0600", t), name + ": pgpass from a Secret, 0600")
        h = re.search(r"- --history\n\s+- (\S+)\n", t)
        need(h and uri_ok(h.group(1)), name + ": --history without a password")
    need("- --finish\n" in ft and "- --finish\n" not in st, "--finish only in the finish Job")
    print("k8s_manifest: python3-yaml not installed: checked the text")

for e in errors:
    print("k8s_manifest: " + e)
sys.exit(1 if errors else 0)
