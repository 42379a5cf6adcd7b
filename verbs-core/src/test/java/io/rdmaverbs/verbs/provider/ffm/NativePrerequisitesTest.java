package io.rdmaverbs.verbs.provider.ffm;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

class NativePrerequisitesTest {

    private static final Optional<String> NO_GCC = Optional.of("gcc is not installed (apt install gcc)");

    @Test
    void aMissingPrerequisiteFailsTheTestInCi() {
        assertThatThrownBy(() -> NativePrerequisites.require(NO_GCC, "true")).isInstanceOf(AssertionError.class)
                .hasMessageContaining("cannot run in CI").hasMessageContaining("apt install gcc");
    }

    @Test
    void aMissingPrerequisiteSkipsTheTestOnADevelopersMachineSayingWhatToInstall() {
        assertThatThrownBy(() -> NativePrerequisites.require(NO_GCC, null)).isInstanceOf(TestAbortedException.class)
                .hasMessageContaining("apt install gcc");
        assertThatThrownBy(() -> NativePrerequisites.require(NO_GCC, "false"))
                .isInstanceOf(TestAbortedException.class);
    }

    @Test
    void nothingMissingRunsTheTestEverywhere() {
        assertThatCode(() -> NativePrerequisites.require(Optional.empty(), "true")).doesNotThrowAnyException();
    }
}
