#!/usr/bin/python3
"""Writes the hostile-input cases of testdata/bad (GitHub issue 26).

Run from anywhere: /usr/bin/python3 testdata/bad/gen_hostile.py
Standard library only; the output is deterministic (fixed gzip mtime,
fixed zip timestamps). Cases that need a FIFO or a symbolic link are
made by the test itself (cmd/rdeval/internal/cli/badinput_test.go), as
git keeps neither well.
"""
import gzip
import io
import os
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))

METR = ('{"run_id":"%s","task_id":"ai_rd_fix_embedding/main","task_family":"ai_rd_fix_embedding",'
        '"alias":"Agent A","model":"m-a","score":0.5,"score_binarized":0,"time_limit":1800,'
        '"started_at":1734070031112,"completed_at":1734071923976,"fatal_error_from":"usageLimits",'
        '"human_minutes":556.6,"human_score":1.045,"human_source":"baseline","dollar_equivalent":null,'
        '"total_tokens":null,"equal_task_weight":0.5,"invsqrt_task_weight":0.5}')


def write(rel, data):
    path = os.path.join(HERE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def gz(data):
    b = io.BytesIO()
    with gzip.GzipFile(fileobj=b, mode="wb", mtime=0, filename="") as f:
        f.write(data)
    return b.getvalue()


# --skip-bad beside whole files that are lost: a truncated Inspect .eval
# (a zip cut in half) and a .gz whose CRC does not match.
write("skip_bad_files/good.jsonl", ("\n".join(METR % r for r in ("r1", "r2")) + "\n").encode())
z = io.BytesIO()
with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
    info = zipfile.ZipInfo("header.json", date_time=(2025, 1, 1, 0, 0, 0))
    zf.writestr(info, '{"version":2,"status":"success","eval":{"run_id":"e1","task":"t"}}' + " " * 400)
zb = z.getvalue()
write("skip_bad_files/truncated.eval", zb[: len(zb) // 2])
g = bytearray(gz((METR % "r3" + "\n").encode()))
g[-8] ^= 0xFF  # the CRC-32 in the trailer
write("skip_bad_files/corrupt.jsonl.gz", bytes(g))

# Silent guesses: each must be an error naming the place (or a warning).
r1, r2 = METR % "r1", METR % "r2"
write("dup_header.csv", b"run_id,task_id,agent,score,score\nr1,t1,a,0.5,0.7\n")
write("cr_only.csv", b"run_id,task_id,agent,score\rr1,t1,a,0.5\rr2,t1,a,0.25\r")
write("ts_1e30.jsonl", (r1 + "\n" + r2.replace('"completed_at":1734071923976', '"completed_at":1e30') + "\n").encode())
write("bad_first_line.jsonl", (r1[:60] + "\n" + r2 + "\n" + (METR % "r3") + "\n").encode())
write("dup_key.jsonl", (r1 + "\n" + r2.replace('"score":0.5,', '"score":0.5,"score":0.75,') + "\n").encode())
write("nul.csv", b"run_id,task_id,agent,score\nr1,t1,a\x00b,0.5\n")
write("time_limit_neg.jsonl", (r1 + "\n" + r2.replace('"time_limit":1800', '"time_limit":-5') + "\n").encode())
write("dup_key_scorelog.jsonl", b'{"run_id":"r1","elapsed_s":1,"score":0.5}\n{"run_id":"r1","elapsed_s":2,"sc\\u006fre":0.5,"score":0.75}\n')

# A corrupt .gz keeps no records (issue 26): the gzip trailer's CRC-32, or
# its length (ISIZE), does not match two good METR records, which must not
# be read as if the stream were sound.
two = ("\n".join(METR % r for r in ("r1", "r2")) + "\n").encode()
g = bytearray(gz(two))
g[-8] ^= 0xFF  # CRC-32
write("gzip_bad_crc.jsonl.gz", bytes(g))
g = bytearray(gz(two))
g[-1] ^= 0x01  # ISIZE, the length mod 2^32 (little-endian, last byte)
write("gzip_bad_length.jsonl.gz", bytes(g))

# A header error is a rejected input, not a bad record: beside the files
# above, with --skip-bad.
write("skip_bad_files/bad_header.csv", b"run_id,task_id,agent,score,score\nr9,t1,a,0.5,0.7\n")
