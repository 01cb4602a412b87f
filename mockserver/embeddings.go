package mockserver

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"time"
)

// POST /v1/embeddings serves AIPerf's embeddings, nim_embeddings and
// chat_embeddings types:
//
//	{"model":…, "input": "…" | ["…",…] | [ids] | [[ids],…], "dimensions":n, "encoding_format":"float"|"base64"}
//	{"model":…, "messages":[…]}   (a chat body: one embedding for the conversation)
//	→ {"object":"list","data":[{"object":"embedding","index":i,"embedding":[…]}],"model":…,
//	   "usage":{"prompt_tokens":p,"total_tokens":p}}
//
// Each vector is a unit vector drawn from its input's text, so identical
// inputs embed identically in every run.

// saltEmbedding separates the embedding walk from the output-text walks.
const saltEmbedding = 0x656d626564 // "embed"

type embeddingsWire struct {
	Model          string          `json:"model"`
	Input          json.RawMessage `json:"input"`
	Messages       []wireMessage   `json:"messages"`
	EncodingFormat string          `json:"encoding_format"`
	Dimensions     *int            `json:"dimensions"`
}

// embeddingInput is one text to embed, or a token-id input (tokenIDs >= 0,
// text then holds its raw JSON as the seed).
type embeddingInput struct {
	text     string
	tokenIDs int
}

type embeddingsRequest struct {
	model  string
	inputs []embeddingInput
	dim    int
	base64 bool
}

func (s *Server) decodeEmbeddings(body []byte) (*embeddingsRequest, error) {
	var wr embeddingsWire
	if err := json.Unmarshal(body, &wr); err != nil {
		return nil, badRequest("invalid JSON body: %v", err)
	}
	if wr.Model == "" {
		return nil, badRequest("missing required field \"model\"")
	}
	req := &embeddingsRequest{model: wr.Model, dim: s.cfg.EmbeddingDim}
	if req.dim == 0 {
		req.dim = DefaultEmbeddingDim
	}
	if wr.Dimensions != nil {
		if *wr.Dimensions < 1 || *wr.Dimensions > MaxEmbeddingDim {
			return nil, badRequest("\"dimensions\" must be in [1, %d], got %d", MaxEmbeddingDim, *wr.Dimensions)
		}
		req.dim = *wr.Dimensions
	}
	switch wr.EncodingFormat {
	case "", "float":
	case "base64":
		req.base64 = true
	default:
		return nil, badRequest("\"encoding_format\" must be \"float\" or \"base64\", got %q", wr.EncodingFormat)
	}
	hasInput := len(bytes.TrimSpace(wr.Input)) > 0 && string(bytes.TrimSpace(wr.Input)) != "null"
	switch {
	case hasInput && wr.Messages != nil:
		return nil, badRequest("set either \"input\" or \"messages\", not both")
	case hasInput:
		inputs, err := embeddingInputs(wr.Input)
		if err != nil {
			return nil, err
		}
		req.inputs = inputs
	case wr.Messages != nil:
		text, err := chatPromptText(wr.Messages)
		if err != nil {
			return nil, err
		}
		req.inputs = []embeddingInput{{text: text, tokenIDs: -1}}
	default:
		return nil, badRequest("missing required field \"input\" (or a chat \"messages\" list)")
	}
	return req, nil
}

// embeddingInputs accepts the input shapes of the embeddings API: a string,
// a list of strings, a token-id list or a list of token-id lists.
func embeddingInputs(raw json.RawMessage) ([]embeddingInput, error) {
	raw = bytes.TrimSpace(raw)
	const shapes = "\"input\" must be a string, an array of strings, an array of token ids or an array of token-id arrays"
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, badRequest("input: %v", err)
		}
		return []embeddingInput{{text: s, tokenIDs: -1}}, nil
	}
	if raw[0] != '[' {
		return nil, badRequest(shapes)
	}
	var texts []string
	if json.Unmarshal(raw, &texts) == nil {
		if len(texts) == 0 {
			return nil, badRequest("\"input\" must not be an empty array")
		}
		out := make([]embeddingInput, len(texts))
		for i, t := range texts {
			out[i] = embeddingInput{text: t, tokenIDs: -1}
		}
		return out, nil
	}
	var ids []int
	if json.Unmarshal(raw, &ids) == nil {
		if len(ids) == 0 {
			return nil, badRequest("\"input\" must not be an empty array")
		}
		return []embeddingInput{{text: string(raw), tokenIDs: len(ids)}}, nil
	}
	var batches []json.RawMessage
	if json.Unmarshal(raw, &batches) == nil {
		out := make([]embeddingInput, 0, len(batches))
		for _, b := range batches {
			var one []int
			if json.Unmarshal(b, &one) != nil || len(one) == 0 {
				return nil, badRequest(shapes)
			}
			out = append(out, embeddingInput{text: string(b), tokenIDs: len(one)})
		}
		return out, nil
	}
	return nil, badRequest(shapes)
}

func (s *Server) embeddingsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		req, ok := admitAs(s, w, r, writeAPIError, s.decodeEmbeddings)
		if !ok {
			return
		}
		seeds := make([]uint64, len(req.inputs))
		prompt := 0
		for i, in := range req.inputs {
			if in.tokenIDs >= 0 {
				seeds[i] = promptSeed(in.text)
				prompt += in.tokenIDs
				continue
			}
			info := s.prompts.lookup(in.text)
			seeds[i] = info.seed
			prompt += info.tokens
		}
		s.respondItems(w, r, start, req.model, prompt, len(req.inputs), func(dst []byte) []byte {
			return appendEmbeddingsBody(dst, req, seeds, prompt)
		})
	})
}

func appendEmbeddingsBody(dst []byte, req *embeddingsRequest, seeds []uint64, prompt int) []byte {
	vec := make([]float32, req.dim)
	dst = append(dst, `{"object":"list","data":[`...)
	for i, seed := range seeds {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"object":"embedding","index":`...)
		dst = appendInt(dst, i)
		dst = append(dst, `,"embedding":`...)
		embed(vec, seed)
		if req.base64 {
			dst = appendFloat32Base64(dst, vec)
		} else {
			dst = appendFloat32List(dst, vec)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `],"model":`...)
	dst = appendJSONString(dst, req.model)
	dst = append(dst, `,"usage":{"prompt_tokens":`...)
	dst = appendInt(dst, prompt)
	dst = append(dst, `,"total_tokens":`...)
	dst = appendInt(dst, prompt)
	return append(dst, "}}\n"...)
}

// embed fills vec with the unit vector of seed.
func embed(vec []float32, seed uint64) {
	w := newWalk(seed, saltEmbedding)
	var norm float64
	for i := range vec {
		// The top 53 bits as a signed value in [-1, 1).
		x := float64(int64(w.next())>>11) / (1 << 52)
		vec[i] = float32(x)
		norm += x * x
	}
	if norm == 0 {
		return
	}
	scale := 1 / math.Sqrt(norm)
	for i := range vec {
		vec[i] = float32(float64(vec[i]) * scale)
	}
}

func appendFloat32List(dst []byte, vec []float32) []byte {
	dst = append(dst, '[')
	for i, v := range vec {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendFloat(dst, float64(v), 'g', -1, 32)
	}
	return append(dst, ']')
}

// appendFloat32Base64 writes the OpenAI base64 encoding: the little-endian
// float32 bytes, base64-encoded, as a JSON string.
func appendFloat32Base64(dst []byte, vec []float32) []byte {
	raw := make([]byte, 4*len(vec))
	for i, v := range vec {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, raw)
	return append(dst, '"')
}
