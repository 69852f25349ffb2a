package web_test

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/askonce/askonce/internal/chromium"
)

// The browser tests run scripts in browsertest/ with node: playwright-core
// (installed there by .ci/run from the committed package-lock.json) drives
// Debian's chromium against a real server on loopback. Where chromium or
// the npm packages are missing they skip, except under CI=true, where
// that is a failure: CI must run them.

var screenshots = flag.Bool("screenshots", false, "save the browser tests' screenshots to docs/img")

// browserScript runs browsertest/<name>.mjs with BASE_URL=base and env
// (NAME=value), and fails the test with the script's output when the
// script fails.
func browserScript(t *testing.T, base, name string, env ...string) {
	t.Helper()
	env = append([]string{"BASE_URL=" + base}, env...)
	if *screenshots {
		dir, err := filepath.Abs(filepath.Join("..", "docs", "img"))
		if err != nil {
			t.Fatal(err)
		}
		env = append(env, "SCREENSHOTS="+dir)
	}
	chromium.Run(t, "browsertest", name, env...)
}

func requireBrowser(t *testing.T) {
	t.Helper()
	chromium.Require(t, "browsertest")
}

// TestBrowser drives the pages in Chromium, one behaviour per subtest.
func TestBrowser(t *testing.T) {
	t.Parallel()
	t.Run("AnswerEachQuestionTypeAndSeeThePlanLive", testBrowserAnswerEachQuestionTypeAndSeeThePlanLive)
	t.Run("InvalidAnswerShowsTheAllowedValuesAndTheUsedLinkIsGone", testBrowserInvalidAnswerShowsTheAllowedValuesAndTheUsedLinkIsGone)
	t.Run("HostileTextRendersInert", testBrowserHostileTextRendersInert)
	t.Run("KeyboardOnlyAnswering", testBrowserKeyboardOnlyAnswering)
	t.Run("QuestionWithFieldsIsOneForm", testBrowserQuestionWithFieldsIsOneForm)
	t.Run("TypedFieldsHaveTheirInputsAndErrorsKeepTheInput", testBrowserTypedFieldsHaveTheirInputsAndErrorsKeepTheInput)
	t.Run("AnswerPageLayoutAtDesktopAndPhoneWidths", testBrowserAnswerPageLayoutAtDesktopAndPhoneWidths)
	t.Run("InboxShowsANewQuestionLiveAndKeyboardReachesIt", testBrowserInboxShowsANewQuestionLiveAndKeyboardReachesIt)
	t.Run("InboxLoginShowsOnlyThatTenantsJobs", testBrowserInboxLoginShowsOnlyThatTenantsJobs)
	t.Run("OIDCSignIn", testBrowserOIDCSignIn)
	t.Run("EmailOptionLinkAnswersAfterOneClick", testBrowserEmailOptionLinkAnswersAfterOneClick)
	t.Run("PagesLoadUnderTheirCSP", testBrowserPagesLoadUnderTheirCSP)
	t.Run("PagesSayItInWordsNotCodesWithPlurals", testBrowserPagesSayItInWordsNotCodesWithPlurals)
}
