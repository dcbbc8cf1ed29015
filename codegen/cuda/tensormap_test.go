package cuda

import (
	"strings"
	"testing"
)

// TestRuleMessagesAgree: every rule message of the generation-time check
// appears, as a printf format, in the launcher's runtime check.
func TestRuleMessagesAgree(t *testing.T) {
	for _, m := range []string{msgRank, msgGlobalDim, msgStrideRange, msgStride16, msgStride32, msgBox, msgElemStride,
		msgElemStride0, msgInterleave, msgInterRank, msgInterSwz, msgSwizzle, msgL2, msgOOB, msgOOBFloat, msgInnerBox,
		msgSwizzleBox, msgAddress} {
		if want := `"tensor map %s: ` + cFormat(m) + `"`; !strings.Contains(encodeHelper, want) {
			t.Errorf("encodeHelper lacks %s", want)
		}
	}
}
