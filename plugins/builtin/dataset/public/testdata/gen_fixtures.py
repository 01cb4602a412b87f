"""Writes the public dataset fixtures of this folder (see README.md).

Each file is small but has the real layout of its dataset: ShareGPT's JSON
array, Spec-Bench's JSONL, and Parquet files written by the `datasets`
library (as the hub's Parquet conversion is), with the real column names and
types (HF Image and Audio structs {bytes, path}, list and struct columns).
Deterministic: running it again rewrites the same content.
"""

import io
import json
import math
import os

import numpy as np
import pyarrow.parquet as pq
import soundfile as sf
from datasets import Dataset, Features, Image, Value
from PIL import Image as PILImage

HERE = os.path.dirname(os.path.abspath(__file__))
LONG = " ".join(f"The {i}th clause of the contract says that the tenant pays on time." for i in range(120))


def png(color, size=(8, 6)):
    buf = io.BytesIO()
    PILImage.new("RGB", size, color).save(buf, "PNG")
    return buf.getvalue()


def jpeg(color, size=(10, 4)):
    buf = io.BytesIO()
    PILImage.new("RGB", size, color).save(buf, "JPEG", quality=90)
    return buf.getvalue()


def flac(seconds, rate=16000):
    n = int(seconds * rate)
    t = np.arange(n) / rate
    tone = (0.25 * np.sin(2 * math.pi * 440 * t)).astype(np.float64)
    tone[int(0.5 * rate):] = 0.0  # silence after half a second keeps the file small
    buf = io.BytesIO()
    sf.write(buf, tone, rate, format="FLAC", subtype="PCM_16")
    return buf.getvalue()


def sharegpt():
    h = lambda v: {"from": "human", "value": v}
    g = lambda v: {"from": "gpt", "value": v}
    entries = [
        {"id": "QWJhYvA_0", "conversations": [h("Summarize the plot of Hamlet in two sentences."), g("Prince Hamlet seeks revenge on his uncle Claudius, who murdered Hamlet's father to take the throne. His hesitation and feigned madness lead to a chain of deaths, including his own.")]},
        {"id": "i6IyJda_0", "conversations": [h("What is the capital of Australia?"), g("The capital of Australia is Canberra, not Sydney as many people assume."), h("Why was it chosen over Sydney and Melbourne?"), g("Canberra was a compromise: Sydney and Melbourne both wanted to be the capital, so a new city was built between them in 1913.")]},
        {"id": "A5AbcES_0", "conversations": [{"from": "system", "value": "You are a helpful assistant."}, h("Write a haiku about autumn leaves falling."), g("Crimson leaves drifting\nWhispering to the cold ground\nSummer's last goodbye")]},
        {"id": "hRPPgZT_0", "conversations": [h("hi"), g("Hello! How can I help you today?")]},
        {"id": "hRPPgZT_1", "conversations": [h("Explain what a hash map is and when to use one."), g("ok")]},
        {"id": "eJIHeSa_0", "conversations": [h(LONG), g("That is a long contract; the key point is that rent is due on time.")]},
        {"id": "eJIHeSa_1", "conversations": [h(LONG[: len(LONG) // 2]), g(LONG[: len(LONG) * 3 // 5])]},
        {"id": "wLrQkPf_0", "conversations": [h("Translate 'good morning' into French and Spanish."), g("French: Bonjour. Spanish: Buenos días."), h("And into German?"), g("ok")]},
        {"id": "Q9lEnVd_0", "conversations": [h("List three prime numbers greater than 100.")]},
        {"id": "Q9lEnVd_1", "conversations": []},
        {"id": "Ksr4mTu_0", "conversations": [{"value": "Give me a synonym for happy, please."}, {"value": "A synonym for happy is joyful."}]},
        {"id": "Ksr4mTu_1", "conversations": [{"from": "user", "value": "How many legs does a spider have?"}, {"from": "chatgpt", "value": "A spider has eight legs."}]},
        {"id": "pXz8nVb_0", "conversations": [g("I am ready to help with your questions today."), h("Name a famous painting by Vermeer."), g("Girl with a Pearl Earring is Vermeer's most famous painting.")]},
        {"id": "pXz8nVb_1", "conversations": [h("Who wrote Pride and Prejudice?"), h("Please answer briefly."), g("Jane Austen wrote Pride and Prejudice in 1813.")]},
        {"id": "mN3oPq_0", "conversations": ["not a message", h("What does HTTP stand for in web addresses?"), g("HTTP stands for HyperText Transfer Protocol.")]},
        {"id": "mN3oPq_1", "conversations": [h(""), g("An empty question gets an empty answer from me."), h("What is the boiling point of water at sea level?"), g("Water boils at 100 degrees Celsius at sea level.")]},
        {"id": "zzTop_0", "conversations": [h("Describe the rules of chess castling in detail."), g("Castling moves the king two squares toward a rook, and the rook jumps over the king. Neither piece may have moved before.")], "lang": "en"},
        {"id": "zzTop_1", "conversations": [h("Is 17 a prime number or not?"), {"from": "bing", "value": "Yes, 17 is a prime number."}]},
        {"id": "zzTop_2", "conversations": [h("Recommend a good book about the history of mathematics."), g("Try 'Journey through Genius' by William Dunham; it walks through great theorems and their history.")]},
        {"id": "zzTop_3", "conversations": [h(12345), g("Numbers are not text, so this entry has no usable prompt.")]},
    ]
    with open(os.path.join(HERE, "sharegpt", "ShareGPT_V3_unfiltered_cleaned_split.json"), "w") as f:
        json.dump(entries, f, ensure_ascii=False, indent=1)


def spec_bench():
    rows = [
        {"question_id": 81, "category": "writing", "turns": ["Compose an engaging travel blog post about a recent trip to Hawaii.", "Rewrite your previous response. Start every sentence with the letter A."]},
        {"question_id": 82, "category": "writing", "turns": ["Draft a professional email seeking your supervisor's feedback on the report."]},
        {"question_id": 83, "category": "math", "turns": []},
        {"question_id": 84, "category": "qa", "turns": ["   ", "Second turn only."]},
        {"question_id": 85, "category": "summarization", "turns": ["  Summarize the following text in one sentence: the quick brown fox jumps over the lazy dog.  "]},
    ]
    with open(os.path.join(HERE, "spec_bench", "spec_bench.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def parquet(repo, config, split, ds):
    d = os.path.join(HERE, "hub", repo.replace("/", "--"), config, split)
    os.makedirs(d, exist_ok=True)
    ds.to_parquet(os.path.join(d, "0000.parquet"))


def hub():
    # AI-MO/NuminaMath-TIR: problem, solution, messages (list of {content, role}).
    parquet("AI-MO/NuminaMath-TIR", "default", "train", Dataset.from_dict({
        "problem": ["What is the coefficient of $x^2y^6$ in the expansion of $\\left(\\frac{3}{5}x-\\frac{y}{2}\\right)^8$?",
                    "", "Find the sum of all integers $k$ such that $\\binom{23}{4} + \\binom{23}{5} = \\binom{24}{k}$.", "   "],
        "solution": ["Use the binomial theorem.", "-", "Pascal's identity gives k = 5 or 19.", "-"],
        "messages": [[{"content": "q1", "role": "user"}, {"content": "a1", "role": "assistant"}]] * 4,
    }))
    # Lin-Chen/MMStar (val): index, question, image (HF Image), answer, category.
    parquet("Lin-Chen/MMStar", "default", "val", Dataset.from_dict({
        "index": [0, 1, 2],
        "question": ["Which option describes the object relationship in the image correctly?\nOptions: A: The suitcase is on the book., B: The suitcase is beneath the cat.",
                     "What color is the square? Options: A: red, B: blue", "Is the picture broken? Options: A: yes, B: no"],
        "image": [{"bytes": png((200, 30, 30)), "path": "0.png"}, {"bytes": jpeg((20, 20, 220)), "path": "1.jpg"}, {"bytes": b"not an image at all", "path": "2.png"}],
        "answer": ["A", "B", "A"],
        "category": ["coarse perception", "coarse perception", "coarse perception"],
    }, features=Features({"index": Value("int64"), "question": Value("string"), "image": Image(), "answer": Value("string"), "category": Value("string")})))
    # HuggingFaceH4/mt_bench_prompts: prompt (list of turns), prompt_id, category, reference.
    parquet("HuggingFaceH4/mt_bench_prompts", "default", "train", Dataset.from_dict({
        "prompt": [["Compose an engaging travel blog post about a recent trip to Hawaii.", "Rewrite your previous response. Start every sentence with the letter A."],
                   ["", "   "], ["  Suppose you are a mathematician and poet. Write a proof that there are infinitely many primes.  "]],
        "prompt_id": [81, 82, 83],
        "category": ["writing", "writing", "math"],
        "reference": [[], [], ["Euclid's proof."]],
    }))
    # lmarena-ai/VisionArena-Chat: conversation (list of lists of {role, content}), images (list of HF Image).
    parquet("lmarena-ai/VisionArena-Chat", "default", "train", Dataset.from_dict({
        "conversation_id": ["c1", "c2", "c3"],
        "conversation": [
            [[{"role": "user", "content": "<image>\nWhat breed is this dog?"}], [{"role": "assistant", "content": "It looks like a corgi."}]],
            [[{"role": "assistant", "content": "Hello."}], [{"role": "user", "content": "  Describe the chart.  "}]],
            [[{"role": "user", "content": "<image>"}]],
        ],
        "images": [[{"bytes": png((10, 200, 10)), "path": None}], [], [{"bytes": png((1, 2, 3)), "path": None}]],
    }, features=Features({"conversation_id": Value("string"),
                          "conversation": [[{"role": Value("string"), "content": Value("string")}]],
                          "images": [Image(decode=False)]})))
    # lmms-lab/LLaVA-OneVision-Data (sharegpt4o): conversations (list of {from, value}), image.
    parquet("lmms-lab/LLaVA-OneVision-Data", "sharegpt4o", "train", Dataset.from_dict({
        "id": ["a", "b"],
        "conversations": [[{"from": "human", "value": "<image>\nWhat is in the picture?"}, {"from": "gpt", "value": "A red square."}],
                          [{"from": "gpt", "value": "Hi."}, {"from": "human", "value": "Tell me a joke about cats."}]],
        "image": [{"bytes": png((255, 0, 0)), "path": "a.png"}, None],
        "data_source": ["sharegpt4o", "sharegpt4o"],
    }, features=Features({"id": Value("string"), "conversations": [{"from": Value("string"), "value": Value("string")}],
                          "image": Image(), "data_source": Value("string")})))
    # yale-nlp/MMVU (validation): id, video (URL), question, choices (struct A..E), answer.
    parquet("yale-nlp/MMVU", "default", "validation", Dataset.from_dict({
        "id": ["v1", "v2", "v3"],
        "video": ["https://huggingface.co/datasets/yale-nlp/MMVU/resolve/main/videos/Art/1.mp4", "", "https://example.com/3.mp4"],
        "question": ["  Which art movement does the painting in the video belong to?  ", "What happens next?", "Name the instrument."],
        "choices": [{"A": "Cubism", "B": "Impressionism", "C": "", "D": None, "E": "Baroque"}, {"A": "x", "B": "y", "C": "", "D": None, "E": None}, None],
        "answer": ["B", "A", "piano"],
    }, features=Features({"id": Value("string"), "video": Value("string"), "question": Value("string"),
                          "choices": {"A": Value("string"), "B": Value("string"), "C": Value("string"), "D": Value("string"), "E": Value("string")},
                          "answer": Value("string")})))
    # vdaita/edit_5k_char: code, change_request (the blazedit prompt template).
    parquet("vdaita/edit_5k_char", "default", "train", Dataset.from_dict({
        "code": ["def add(a, b):\n    return a + b\n"],
        "change_request": ["Rename the function to sum_two and add type hints."],
    }))
    # openslr/librispeech_asr (clean/test): file, audio (HF Audio, FLAC bytes), text, speaker_id.
    # datasets cannot encode Audio without torchcodec, so the struct is written
    # as such and the schema's feature metadata marked Audio, as the hub's
    # converter leaves it.
    ds = Dataset.from_dict({
        "file": ["1.flac", "2.flac", "3.flac", "4.flac"],
        "audio": [{"bytes": flac(1.0), "path": "1.flac"}, {"bytes": flac(31.0), "path": "2.flac"},
                  {"bytes": b"not audio", "path": "3.flac"}, {"bytes": flac(2.5, rate=8000), "path": "4.flac"}],
        "text": ["ONE", "TWO", "THREE", "FOUR"],
        "speaker_id": [1, 2, 3, 4],
    }, features=Features({"file": Value("string"), "audio": {"bytes": Value("binary"), "path": Value("string")},
                          "text": Value("string"), "speaker_id": Value("int64")}))
    table = ds.data.table
    meta = json.loads(table.schema.metadata[b"huggingface"])
    meta["info"]["features"]["audio"] = {"sampling_rate": 16000, "_type": "Audio"}
    table = table.replace_schema_metadata({b"huggingface": json.dumps(meta).encode()})
    d = os.path.join(HERE, "hub", "openslr--librispeech_asr", "clean", "test")
    os.makedirs(d, exist_ok=True)
    pq.write_table(table, os.path.join(d, "0000.parquet"))

if __name__ == "__main__":
    for sub in ("sharegpt", "spec_bench", "hub"):
        os.makedirs(os.path.join(HERE, sub), exist_ok=True)
    sharegpt()
    spec_bench()
    hub()
