#!/usr/bin/env python3
"""Large dataset files for the issue 11 load measurements (docs/PERFORMANCE.md).

Usage: gen-large-datasets.py single N OUT.jsonl | gen-large-datasets.py mooncake N OUT.jsonl
single: N single_turn lines of 75 corpus words; mooncake: N trace lines of 1-4 hash blocks
(512 tokens), 60% starting with one of 200 shared prefixes. Seeded, so the files are reproducible.
"""
import json, random, sys
random.seed(1)
words = open(__import__('os').path.join(__import__('os').path.dirname(__file__), '..', 'plugins', 'builtin', 'dataset', 'corpus', 'shakespeare.txt')).read().split()
def single(n, path):
    with open(path, 'w') as f:
        for i in range(n):
            s = random.randrange(0, len(words)-100)
            f.write(json.dumps({"text": " ".join(words[s:s+75])}) + "\n")
def mooncake(n, path):
    # realistic: shared prefixes (system prompts / multi-turn reuse) + fresh blocks
    nxt = 0
    prefixes = []
    for _ in range(200):
        k = random.randint(1, 2)
        prefixes.append(list(range(nxt, nxt+k))); nxt += k
    ts = 0
    with open(path, 'w') as f:
        for i in range(n):
            k = random.randint(1, 4)
            ids = []
            if random.random() < 0.6:
                ids = list(random.choice(prefixes))[:k]
            while len(ids) < k:
                ids.append(nxt); nxt += 1
            il = (k-1)*512 + random.randint(1, 512)
            ts += random.randint(0, 3)
            f.write(json.dumps({"timestamp": ts, "input_length": il, "output_length": random.randint(1, 300), "hash_ids": ids}) + "\n")
what = sys.argv[1]
if what == 'single': single(int(sys.argv[2]), sys.argv[3])
else: mooncake(int(sys.argv[2]), sys.argv[3])
