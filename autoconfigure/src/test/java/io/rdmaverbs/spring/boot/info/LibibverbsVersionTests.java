package io.rdmaverbs.spring.boot.info;

import java.util.List;

import io.rdmaverbs.verbs.provider.ffm.NativeVerbsProvider;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class LibibverbsVersionTests {

    @Test
    void theRdmaCoreReleaseIsTheTailOfTheLibraryFileName() {
        assertThat(LibibverbsVersion.ofFileName("libibverbs.so.1.14.44.0")).contains("44.0");
        // Before rdma-core 21 the ABI minor was 1: the release is still the tail.
        assertThat(LibibverbsVersion.ofFileName("libibverbs.so.1.1.17.1")).contains("17.1");
    }

    @Test
    void aLinkNameOrAProviderLibraryNamesNoRelease() {
        assertThat(LibibverbsVersion.ofFileName("libibverbs.so.1")).isEmpty();
        assertThat(LibibverbsVersion.ofFileName("libibverbs.so")).isEmpty();
        assertThat(LibibverbsVersion.ofFileName("libmlx5.so.1.24.44.0")).isEmpty();
        assertThat(LibibverbsVersion.ofFileName("librxe-rdmav34.so")).isEmpty();
    }

    @Test
    void theReleaseIsThatOfTheLibibverbsFileTheProcessHasMapped() {
        List<String> maps = List.of(
                "7f1c2a000000-7f1c2a028000 r--p 00000000 08:01 1311 /usr/lib/x86_64-linux-gnu/libc.so.6",
                "7f1c2b000000-7f1c2b00c000 r-xp 00004000 08:01 2042 /usr/lib/x86_64-linux-gnu/libmlx5.so.1.24.44.0",
                "7f1c2c000000-7f1c2c006000 r--p 00000000 08:01 2040 /usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0",
                "7ffd4b1e0000-7ffd4b201000 rw-p 00000000 00:00 0    [stack]");
        assertThat(LibibverbsVersion.ofMaps(maps)).contains("44.0");
        assertThat(LibibverbsVersion.ofMaps(maps.subList(0, 2))).isEmpty();
    }

    @Test
    void onceTheNativeProviderIsLoadedThisProcessHasARelease() {
        assumeTrue(NativeVerbsProvider.availability().available(), "libibverbs cannot be loaded here");
        assertThat(LibibverbsVersion.ofThisProcess()).hasValueSatisfying(r -> assertThat(r).matches("\\d+\\.\\d+"));
    }
}
