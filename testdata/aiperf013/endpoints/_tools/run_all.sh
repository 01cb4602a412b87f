#!/usr/bin/env bash
# Re-runs every capture. Usage: bash run_all.sh [name-filter-regex]
cd /tmp/issue10
F="${1:-.}"
C=(--model mock-model --url {URL} --request-count 2 --concurrency 1 --random-seed 1 --ui-type none --tokenizer /work/main/.cache/testdata/qwen3)
RK=(--rankings-passages-mean 3 --rankings-passages-stddev 1 --rankings-passages-prompt-token-mean 8 --rankings-passages-prompt-token-stddev 2 --rankings-query-prompt-token-mean 6 --rankings-query-prompt-token-stddev 0)
run() { local name="$1"; shift; if [[ "$name" =~ $F ]]; then python3 run_capture.py "$name" "$@"; fi; }

# --- chat / completions
run chat                 -- "${C[@]}" --endpoint-type chat --isl 16
run chat_stream          -- "${C[@]}" --endpoint-type chat --isl 16 --osl 8 --streaming --extra-inputs temperature:0.5 --extra-inputs top_k:5
run chat_legacy_max_tokens -- "${C[@]}" --endpoint-type chat --isl 16 --osl 8 --use-legacy-max-tokens --system-prompt "You are terse."
run chat_batch_text2     -- "${C[@]}" --endpoint-type chat --isl 8 --batch-size-text 2
run chat_empty           --server-arg --empty -- "${C[@]}" --endpoint-type chat --isl 8
run completions          -- "${C[@]}" --endpoint-type completions --isl 16 --osl 8
run completions_stream   -- "${C[@]}" --endpoint-type completions --isl 16 --osl 8 --streaming
run completions_batch2   -- "${C[@]}" --endpoint-type completions --isl 8 --batch-size-text 2
# --- multimodal chat
run chat_mm_image_audio  -- "${C[@]}" --endpoint-type chat --isl 8 --image-width-mean 8 --image-height-mean 8 --image-format png --batch-size-image 1 --audio-length-mean 0.02 --audio-format wav --audio-sample-rates 8 --batch-size-audio 1
run chat_mm_assets_jpeg  -- "${C[@]}" --endpoint-type chat --isl 8 --image-source assets --image-format jpeg --image-width-mean 8 --image-height-mean 6 --image-width-stddev 2 --batch-size-image 2
run chat_mm_audio_mp3    -- "${C[@]}" --endpoint-type chat --isl 8 --audio-length-mean 0.05 --audio-format mp3 --audio-sample-rates 8 --audio-depths 16 --audio-num-channels 2
run chat_video           -- "${C[@]}" --endpoint-type chat --isl 8 --video-width 16 --video-height 16 --video-duration 1 --video-fps 2 --video-synth-type noise
run chat_single_turn_media -- "${C[@]}" --endpoint-type chat --input-file /tmp/issue10/datasets/single_turn_media.jsonl --custom-dataset-type single_turn
run chat_multi_turn      -- "${C[@]}" --endpoint-type chat --input-file /tmp/issue10/datasets/multi_turn.jsonl --custom-dataset-type multi_turn
# --- embeddings
run embeddings_b3        -- "${C[@]}" --endpoint-type embeddings --isl 8 --batch-size-text 3 --extra-inputs encoding_format:float
run embeddings_no_object --server-arg --embeddings-no-object -- "${C[@]}" --endpoint-type embeddings --isl 8
run embeddings_streaming_flag -- "${C[@]}" --endpoint-type embeddings --isl 8 --streaming
run nim_embeddings       -- "${C[@]}" --endpoint-type nim_embeddings --isl 8 --batch-size-text 2 --extra-inputs input_type:query
run nim_embeddings_images -- "${C[@]}" --endpoint-type nim_embeddings --isl 8 --batch-size-text 2 --image-width-mean 8 --image-height-mean 8 --batch-size-image 2
run chat_embeddings      -- "${C[@]}" --endpoint-type chat_embeddings --isl 8 --image-width-mean 8 --image-height-mean 8
# --- rankings
run nim_rankings         -- "${C[@]}" --endpoint-type nim_rankings "${RK[@]}"
run nim_rankings_b3      -- "${C[@]}" --endpoint-type nim_rankings "${RK[@]}" --batch-size-text 3
run hf_tei_rankings      -- "${C[@]}" --endpoint-type hf_tei_rankings "${RK[@]}" --extra-inputs truncate:true
run cohere_rankings      -- "${C[@]}" --endpoint-type cohere_rankings "${RK[@]}" --extra-inputs top_n:2
run rankings_defaults    -- "${C[@]}" --endpoint-type nim_rankings
run rankings_file        -- "${C[@]}" --endpoint-type cohere_rankings --input-file /tmp/issue10/datasets/rankings_file.jsonl --custom-dataset-type single_turn
run rankings_empty       --server-arg --empty -- "${C[@]}" --endpoint-type nim_rankings "${RK[@]}"
# --- TGI
run huggingface_generate -- "${C[@]}" --endpoint-type huggingface_generate --isl 8 --osl 8 --extra-inputs temperature:0.5
run huggingface_generate_stream -- "${C[@]}" --endpoint-type huggingface_generate --isl 8 --osl 8 --streaming
# --- image / video generation
run image_generation     -- "${C[@]}" --endpoint-type image_generation --isl 8 --extra-inputs size:512x512 --extra-inputs quality:low
run image_generation_stream -- "${C[@]}" --endpoint-type image_generation --isl 8 --streaming --extra-inputs partial_images:1
run image_generation_empty --server-arg --empty -- "${C[@]}" --endpoint-type image_generation --isl 8
run video_generation     -- "${C[@]}" --endpoint-type video_generation --isl 8 --extra-inputs seconds:4 --extra-inputs size:64x64
run video_generation_download -- "${C[@]}" --endpoint-type video_generation --isl 8 --download-video-content
run video_generation_json -- "${C[@]}" --endpoint-type video_generation --isl 8 --request-content-type application-json
# --- solido
run solido_rag           -- "${C[@]}" --endpoint-type solido_rag --isl 8
run solido_rag_stream    -- "${C[@]}" --endpoint-type solido_rag --isl 8 --streaming
# --- template
run template_file        -- "${C[@]}" --endpoint-type template --isl 8 --osl 4 --custom-endpoint /custom/generate --extra-inputs payload_template:/tmp/issue10/templates/custom.j2 --extra-inputs temperature:0.2
run template_dataset     -- "${C[@]}" --endpoint-type template --custom-endpoint /custom/generate --extra-inputs payload_template:/tmp/issue10/templates/custom.j2 --input-file /tmp/issue10/datasets/single_turn_template.jsonl --custom-dataset-type single_turn
run template_inline_jmespath -- "${C[@]}" --endpoint-type template --isl 8 --custom-endpoint /custom/generate --extra-inputs '{"payload_template": "{\"q\": {{ text|tojson }}, \"m\": \"{{ model }}\"}", "response_field": "custom.answer"}'
run template_named_nvembedqa -- "${C[@]}" --endpoint-type template --isl 8 --batch-size-text 2 --custom-endpoint /v1/embeddings --extra-inputs payload_template:nv-embedqa
run template_stream      -- "${C[@]}" --endpoint-type template --isl 8 --streaming --custom-endpoint /custom/generate --extra-inputs payload_template:/tmp/issue10/templates/custom.j2
run template_missing     -- "${C[@]}" --endpoint-type template --isl 8
# --- responses / messages
run responses            -- "${C[@]}" --endpoint-type responses --isl 8 --osl 8 --system-prompt "Be brief."
run responses_stream     -- "${C[@]}" --endpoint-type responses --isl 8 --osl 8 --streaming --image-width-mean 8 --image-height-mean 8
run messages             -- "${C[@]}" --endpoint-type messages --isl 8 --system-prompt "Be brief." --api-key sk-test
run messages_stream      -- "${C[@]}" --endpoint-type messages --isl 8 --osl 8 --streaming
# --- flags rejected
run reject_content_type_chat -- "${C[@]}" --endpoint-type chat --isl 8 --request-content-type multipart-form-data
run video_generation_json2 -- "${C[@]}" --endpoint-type video_generation --isl 8 --request-content-type application/json
run reject_content_type_chat2 -- "${C[@]}" --endpoint-type chat --isl 8 --request-content-type multipart/form-data
run chat_image_batch_only -- "${C[@]}" --endpoint-type chat --isl 8 --batch-size-image 1
run chat_audio_batch_only -- "${C[@]}" --endpoint-type chat --isl 8 --batch-size-audio 1
run chat_image_format_random -- "${C[@]}" --endpoint-type chat --isl 8 --image-width-mean 4 --image-height-mean 4 --image-format random --batch-size-image 3
run rankings_with_isl_flag -- "${C[@]}" --endpoint-type nim_rankings --isl 8 "${RK[@]}"
run chat_file_with_batch_flag -- "${C[@]}" --endpoint-type chat --input-file /tmp/issue10/datasets/single_turn_media.jsonl --custom-dataset-type single_turn --batch-size-text 2
