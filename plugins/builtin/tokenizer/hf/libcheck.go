//go:build hf

package hf

/*
// A weak reference resolves to NULL instead of failing the link. Builds that
// link with --unresolved-symbols=ignore-in-object-files (go-nvml adds it)
// would otherwise start with a missing or mismatched libtokenizers.a and
// crash on the first call into it.
extern void tokenizers_version_1_22_1(void) __attribute__((weak));
static int hf_library_linked(void) { return tokenizers_version_1_22_1 != 0; }
*/
import "C"

import "errors"

// checkLibrary reports whether the linked libtokenizers.a is the release the
// Go binding expects.
func checkLibrary() error {
	if C.hf_library_linked() == 0 {
		return errors.New("libtokenizers.a v1.22.1 is not linked into this binary (symbol tokenizers_version_1_22_1 missing); rebuild with \"make tokenizers-lib build\"")
	}
	return nil
}
