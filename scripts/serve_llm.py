"""Serve a GGUF model with llama.cpp's OpenAI-compatible server (xllamacpp), on 127.0.0.1.

Usage: python scripts/serve_llm.py MODEL.gguf PORT   (see scripts/local_llm.sh)
"""

import sys
import time

import xllamacpp


def main() -> None:
    model, port = sys.argv[1], int(sys.argv[2])
    params = xllamacpp.CommonParams()
    params.model.path = model
    params.model_alias = {"qwen"}
    params.n_ctx = 4096  # five passages plus the prompt fit
    params.n_parallel = 1
    params.hostnames = ["127.0.0.1"]
    params.port = port
    for cpu in (params.cpuparams, params.cpuparams_batch):
        cpu.n_threads = 2
        cpu.poll = 0  # don't spin: the console shares these cores
    server = xllamacpp.Server(params)
    print("listening on", server.listening_address, flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
