// Package media generates and encodes the images, audio clips and videos of
// multimodal turns the way AIPerf 0.13 does (dataset/generator/image.py,
// audio.py, video.py and dataset/utils.py): seeded synthetic generators for
// the synthetic composer, and EncodeImage/EncodeAudio/EncodeVideo for the
// media paths, URLs and already-encoded strings named in dataset files.
//
// Every generator draws from its own named random streams (AIPerf's
// "dataset.image.dimensions", "dataset.audio.duration", ...), so one seed
// gives the same bytes on every run and changing one option does not shift
// another's draws. The bytes differ from AIPerf's, which come from numpy and
// PIL; the distributions, sizes, formats and headers are the same.
//
// Video and MP3 need the ffmpeg binary (FFmpeg option, else "ffmpeg" on
// PATH); without it the generators fail at construction with an error that
// says how to install it. Images and WAV audio are pure Go.
//
// Choices where AIPerf is silent or differs, on purpose:
//   - JPEGs are written by image/jpeg at quality 85 with 4:2:0 chroma
//     subsampling; AIPerf asks PIL for 4:4:4 (subsampling=0), which the
//     standard library cannot write. Sizes differ by a few percent.
//   - The bundled "assets" images are four small JPEGs drawn for this
//     package (assets/README.md), not AIPerf's four photographs, and
//     resizing uses a PIL-style bicubic filter written here.
//   - A directory source indexes .png, .jpg and .jpeg files only.
//   - moving_shapes and grid_clock videos do not depend on the seed, so the
//     first encoded clip is reused instead of running ffmpeg again.
//   - ffmpeg runs with -fflags +bitexact so the container bytes (the WebM
//     segment UID, encoder tags) are the same on every run.
//   - MP3 is encoded by ffmpeg's libmp3lame (AIPerf: libsndfile's LAME), and
//     every --audio-sample-rates value is checked against the MP3 rates up
//     front, where AIPerf fails only when it draws a bad one.
//   - EncodeAudio also reports the clip length (WAV header, MP3 frames),
//     which AIPerf leaves unknown for dataset files; callers choose whether
//     to use it.
//
// Kept from AIPerf although surprising: the default video codec is
// libvpx-vp9 for mp4 too; 24-bit WAV noise sits 8 bits below full scale
// (libsndfile keeps the top three bytes of AIPerf's int32 samples); the
// blue moving_shapes circle starts at (width, height) mod size, i.e. (0, 0).
package media
