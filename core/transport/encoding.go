package transport

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/andybalholm/brotli"
)

// Response bodies are decoded as the server's Content-Encoding says, as
// aiohttp does for AIPerf: gzip (and x-gzip), deflate (zlib-wrapped, or raw
// deflate as some servers send it) and br. identity, an absent header and
// codings aiohttp does not know pass through as sent; zstd and lists of
// codings are refused, naming them. Go's transport decodes nothing itself:
// compression is off (options.go) so the caller's headers go out unchanged.
//
// Decoding happens inside the body Read, so a streamed event is stamped when
// the Read that delivers its decoded bytes returns: the read time of the
// compressed chunk that carried it plus its decompression, which is
// microseconds. A server must flush its compressor per event (gzip's sync
// flush) for events to arrive one by one, as with any proxy.

// decodeError is a body that could not be decoded as its Content-Encoding
// says; its text names the encoding, as aiohttp's ContentEncodingError
// ("Can not decode content-encoding: gzip").
type decodeError struct {
	encoding string
	err      error
}

func (e *decodeError) Error() string {
	if e.err == nil {
		return "Can not decode content-encoding: " + e.encoding
	}
	return fmt.Sprintf("Can not decode content-encoding: %s: %v", e.encoding, e.err)
}

func (e *decodeError) Unwrap() error { return e.err }

// decodeBody replaces resp.Body with a reader of its decoded bytes when the
// response has a Content-Encoding to undo. Closing it closes the original.
func decodeBody(resp *http.Response) {
	enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding")))
	switch enc {
	case "", "identity":
		return
	}
	src := &srcReader{r: resp.Body}
	resp.Body = &decodingBody{enc: enc, src: src, closer: resp.Body}
	// The decoded length is unknown; a compressed Content-Length would
	// mislead a reader that trusts it.
	resp.ContentLength = -1
}

// srcReader remembers the wire body's last error, so a network failure
// under the decoder keeps its own class (reset, timeout, cancellation)
// rather than becoming a decoding error.
type srcReader struct {
	r   io.Reader
	err error
}

func (s *srcReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}

// decodingBody builds its decoder on the first Read, so a bad header is a
// read error of the body like any other, and reading it blocks no earlier.
type decodingBody struct {
	enc    string
	src    *srcReader
	closer io.Closer
	r      io.Reader
}

func (d *decodingBody) Read(p []byte) (int, error) {
	if d.r == nil {
		r, err := newDecoder(d.enc, d.src)
		if err != nil {
			return 0, d.wrap(err)
		}
		d.r = r
	}
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF {
		err = d.wrap(err)
	}
	return n, err
}

// wrap names the encoding unless the failure came from the wire.
func (d *decodingBody) wrap(err error) error {
	if d.src.err != nil && errors.Is(err, d.src.err) {
		return d.src.err
	}
	return &decodeError{encoding: d.enc, err: err}
}

func (d *decodingBody) Close() error {
	if c, ok := d.r.(io.Closer); ok {
		_ = c.Close() // releases decoder state only; the wire body matters
	}
	return d.closer.Close()
}

// newDecoder returns the reader for one coding, or passes src through for
// codings aiohttp leaves alone.
func newDecoder(enc string, src io.Reader) (io.Reader, error) {
	switch enc {
	case "gzip", "x-gzip":
		return gzip.NewReader(src)
	case "deflate":
		// RFC 9110's deflate is zlib-wrapped; some servers send raw
		// deflate. aiohttp tells them apart by the first byte's
		// compression method (8 = zlib's deflate), and so do we.
		br := bufio.NewReader(src)
		b, err := br.Peek(1)
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if b[0]&0x0f == 8 {
			return zlib.NewReader(br)
		}
		return flate.NewReader(br), nil
	case "br":
		return brotli.NewReader(src), nil
	case "zstd":
		return nil, errors.New("zstd is not supported")
	}
	if strings.ContainsRune(enc, ',') {
		return nil, errors.New("more than one coding is not supported")
	}
	return src, nil
}
