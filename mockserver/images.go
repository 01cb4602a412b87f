package mockserver

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// OpenAI image generation (AIPerf's image_generation type):
//
//	POST /v1/images/generations {"prompt","model","n","size","quality","response_format","stream","partial_images"}
//	non-streaming → {"created","data":[{"b64_json"},…],"background","output_format":"png","quality","size","usage"}
//	streaming → per image, partial_images events "image_generation.partial_image"
//	  (with partial_image_index) and one "image_generation.completed" with the
//	  usage so far, each as an "event:" line plus JSON with the same "type".
//
// Images are valid single-colour PNGs of the requested size, the colour
// drawn from the prompt. Usage follows gpt-image-1's accounting: the prompt
// tokens in, and per image 272/1056/4160 tokens (low/medium/high quality)
// scaled by area relative to 1024×1024, plus 100 per partial image.

const (
	maxImages        = 10
	maxImageSide     = 4096
	maxPartialImages = 3
	// tokensPerPartialImage is what OpenAI bills per streamed partial image.
	tokensPerPartialImage = 100
)

// imageQualityTokens is the output-token cost of a 1024×1024 image.
var imageQualityTokens = map[string]int{"low": 272, "medium": 1056, "high": 4160, "standard": 1056, "hd": 4160}

// saltImage separates the image colours from the output-text walks.
const saltImage = 0x696d616765 // "image"

type imagesWire struct {
	Prompt         *string `json:"prompt"`
	Model          string  `json:"model"`
	N              *int    `json:"n"`
	Size           string  `json:"size"`
	Quality        string  `json:"quality"`
	ResponseFormat string  `json:"response_format"`
	Background     string  `json:"background"`
	Stream         bool    `json:"stream"`
	PartialImages  *int    `json:"partial_images"`
}

type imagesRequest struct {
	model, prompt  string
	n              int
	w, h           int
	quality        string
	background     string
	url            bool
	stream         bool
	partial        int
	perImageTokens int
}

func decodeImages(body []byte) (*imagesRequest, error) {
	var wr imagesWire
	if err := json.Unmarshal(body, &wr); err != nil {
		return nil, badRequest("invalid JSON body: %v", err)
	}
	if wr.Prompt == nil || *wr.Prompt == "" {
		return nil, badRequest("missing required field \"prompt\" (a non-empty string)")
	}
	req := &imagesRequest{model: wr.Model, prompt: *wr.Prompt, n: 1, w: 1024, h: 1024,
		quality: "medium", background: "opaque", stream: wr.Stream}
	if req.model == "" {
		req.model = defaultModels[0] // the API defaults the model too
	}
	if wr.N != nil {
		if *wr.N < 1 || *wr.N > maxImages {
			return nil, badRequest("\"n\" must be in [1, %d], got %d", maxImages, *wr.N)
		}
		req.n = *wr.N
	}
	if wr.Size != "" && wr.Size != "auto" {
		w, h, err := parseSize(wr.Size, maxImageSide)
		if err != nil {
			return nil, err
		}
		req.w, req.h = w, h
	}
	if wr.Quality != "" && wr.Quality != "auto" {
		if _, ok := imageQualityTokens[wr.Quality]; !ok {
			return nil, badRequest("\"quality\" must be one of low, medium, high, auto, standard or hd, got %q", wr.Quality)
		}
		req.quality = wr.Quality
	}
	if wr.Background == "transparent" {
		req.background = wr.Background
	}
	switch wr.ResponseFormat {
	case "", "b64_json":
	case "url":
		req.url = true
	default:
		return nil, badRequest("\"response_format\" must be \"b64_json\" or \"url\", got %q", wr.ResponseFormat)
	}
	if wr.PartialImages != nil {
		if *wr.PartialImages < 0 || *wr.PartialImages > maxPartialImages {
			return nil, badRequest("\"partial_images\" must be in [0, %d], got %d", maxPartialImages, *wr.PartialImages)
		}
		if req.stream {
			req.partial = *wr.PartialImages
		}
	}
	area := float64(req.w) * float64(req.h) / (1024 * 1024)
	req.perImageTokens = max(1, int(math.Round(float64(imageQualityTokens[req.quality])*area))) + req.partial*tokensPerPartialImage
	return req, nil
}

// parseSize reads "WxH" with both sides in [1, limit].
func parseSize(size string, limit int) (int, int, error) {
	ws, hs, ok := strings.Cut(size, "x")
	w, errW := strconv.Atoi(ws)
	h, errH := strconv.Atoi(hs)
	if !ok || errW != nil || errH != nil || w < 1 || h < 1 || w > limit || h > limit {
		return 0, 0, badRequest("\"size\" must be WIDTHxHEIGHT with sides in [1, %d], got %q", limit, size)
	}
	return w, h, nil
}

func (s *Server) imagesHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		req, ok := admitAs(s, w, r, writeAPIError, decodeImages)
		if !ok {
			return
		}
		info := s.prompts.lookup(req.prompt)
		out := &imagesResponse{req: req, seed: info.seed, prompt: info.tokens, created: time.Now().Unix()}
		if !req.stream {
			s.respondItems(w, r, start, req.model, info.tokens, req.n, out.body)
			return
		}
		mm := s.metrics.forModel(req.model)
		mm.running.Inc()
		defer mm.running.Dec()
		g := getGeneration()
		defer putGeneration(g)
		// One "token" per event, on the TTFT + k·ITL schedule.
		plan := outputPlan{content: req.n * (req.partial + 1), finish: "stop"}
		if _, ok := s.streamEvents(r.Context(), w, g, plan, start, mm, nil, out.event, func(dst []byte) []byte { return dst }); ok {
			mm.finished(start, info.tokens, 0, "stop")
		} else {
			mm.aborted(info.tokens, 0)
		}
	})
}

type imagesResponse struct {
	req     *imagesRequest
	seed    uint64
	prompt  int
	created int64
	k       int // events written so far
}

// color is the colour of image i's partial j (j == partial: the final one).
func (o *imagesResponse) color(i, j int) [3]byte {
	w := newWalk(o.seed^uint64(i*(maxPartialImages+1)+j)*golden, saltImage)
	x := w.next()
	return [3]byte{byte(x), byte(x >> 8), byte(x >> 16)}
}

func (o *imagesResponse) appendB64(dst []byte, i, j int) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, solidPNG(o.req.w, o.req.h, o.color(i, j)))
	return append(dst, '"')
}

// appendMeta writes `"size":…,"quality":…,"background":…,"output_format":"png"`
// in the order of OpenAI's stream events.
func (o *imagesResponse) appendMeta(dst []byte) []byte {
	dst = append(dst, `"size":"`...)
	dst = appendInt(dst, o.req.w)
	dst = append(dst, 'x')
	dst = appendInt(dst, o.req.h)
	dst = append(dst, `","quality":"`...)
	dst = append(dst, o.req.quality...)
	dst = append(dst, `","background":"`...)
	dst = append(dst, o.req.background...)
	return append(dst, `","output_format":"png"`...)
}

// appendUsage writes the usage of the first images images.
func (o *imagesResponse) appendUsage(dst []byte, images int) []byte {
	out := images * o.req.perImageTokens
	dst = append(dst, `{"total_tokens":`...)
	dst = appendInt(dst, o.prompt+out)
	dst = append(dst, `,"input_tokens":`...)
	dst = appendInt(dst, o.prompt)
	dst = append(dst, `,"output_tokens":`...)
	dst = appendInt(dst, out)
	dst = append(dst, `,"input_tokens_details":{"text_tokens":`...)
	dst = appendInt(dst, o.prompt)
	return append(dst, `,"image_tokens":0}}`...)
}

// event writes the next stream event; the word is unused.
func (o *imagesResponse) event(dst, _ []byte, _ bool) []byte {
	per := o.req.partial + 1
	i, j := o.k/per, o.k%per
	o.k++
	typ := "image_generation.partial_image"
	if j == o.req.partial {
		typ = "image_generation.completed"
	}
	dst = appendSSEHead(dst, typ)
	dst = append(dst, `{"type":"`...)
	dst = append(dst, typ...)
	dst = append(dst, `","b64_json":`...)
	dst = o.appendB64(dst, i, j)
	dst = append(dst, `,"created_at":`...)
	dst = appendInt(dst, int(o.created))
	dst = append(dst, ',')
	dst = o.appendMeta(dst)
	if j < o.req.partial {
		dst = append(dst, `,"partial_image_index":`...)
		dst = appendInt(dst, j)
	} else {
		dst = append(dst, `,"usage":`...)
		dst = o.appendUsage(dst, i+1)
	}
	return append(dst, "}"+sseEnd...)
}

func (o *imagesResponse) body(dst []byte) []byte {
	dst = append(dst, `{"created":`...)
	dst = appendInt(dst, int(o.created))
	dst = append(dst, `,"data":[`...)
	for i := range o.req.n {
		if i > 0 {
			dst = append(dst, ',')
		}
		if o.req.url {
			dst = append(dst, `{"url":"data:image/png;base64,`...)
			dst = base64.StdEncoding.AppendEncode(dst, solidPNG(o.req.w, o.req.h, o.color(i, o.req.partial)))
			dst = append(dst, `"}`...)
			continue
		}
		dst = append(dst, `{"b64_json":`...)
		dst = o.appendB64(dst, i, o.req.partial)
		dst = append(dst, '}')
	}
	dst = append(dst, `],"background":"`...)
	dst = append(dst, o.req.background...)
	dst = append(dst, `","output_format":"png","quality":"`...)
	dst = append(dst, o.req.quality...)
	dst = append(dst, `","size":"`...)
	dst = appendInt(dst, o.req.w)
	dst = append(dst, 'x')
	dst = appendInt(dst, o.req.h)
	dst = append(dst, `","usage":`...)
	dst = o.appendUsage(dst, o.req.n)
	return append(dst, "}\n"...)
}
