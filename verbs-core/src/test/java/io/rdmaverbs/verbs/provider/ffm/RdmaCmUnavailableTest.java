package io.rdmaverbs.verbs.provider.ffm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * Each way librdmacm can be unavailable, in a JVM of its own (a library is opened once per process):
 * a typed {@code ProviderUnavailableException} with what to do, and the verbs still load afterwards.
 */
class RdmaCmUnavailableTest {

    private static final String ENABLE = "--enable-native-access=ALL-UNNAMED";

    @Test
    void aMissingLibrdmacmIsLibraryNotFoundNamingThePathAndTheVerbsStillLoad() throws Exception {
        String missing = "/nonexistent/rdma-core/librdmacm.so.1";

        Map<String, String> out = ProviderUnavailableTest.forked(ForkedCmLoad.class, ENABLE,
                "-D" + Librdmacm.LIBRARY_PROPERTY + "=" + missing);

        assertThat(out).containsEntry("cm", "LIBRARY_NOT_FOUND").containsEntry("verbs", "LOADED");
        assertThat(out.get("cm.message")).contains(missing).contains("does not exist")
                .contains("the verbs are not affected").contains("apt install librdmacm1");
    }

    @Test
    void aMissingLibrdmacmMakesTheProvidersConnectionVerbsUnavailableWithTheRemedyAndTheDeviceVerbsStillAnswer()
            throws Exception {
        String missing = "/nonexistent/rdma-core/librdmacm.so.1";

        Map<String, String> out = ProviderUnavailableTest.forked(ForkedCmLoad.class, ENABLE,
                "-D" + Librdmacm.LIBRARY_PROPERTY + "=" + missing);

        assertThat(out).containsEntry("connectionVerbs", "CONNECTION_MANAGER_UNAVAILABLE");
        assertThat(out.get("connectionVerbs.message")).contains("rdma_cm(7)").contains(missing)
                .contains("apt install librdmacm1");
        assertThat(out.get("devices.after")).as("ibv_get_device_list after the refusal").matches("\\d+");
    }

    @Test
    void aLibraryWithoutTheCmSymbolsIsSymbolMissingNamingThemAndTheVerbsStillLoad() throws Exception {
        Path notCm = Path.of(System.getProperty("java.home"), "lib", "libjava.so");

        Map<String, String> out = ProviderUnavailableTest.forked(ForkedCmLoad.class, ENABLE,
                "-D" + Librdmacm.LIBRARY_PROPERTY + "=" + notCm);

        assertThat(out).containsEntry("cm", "SYMBOL_MISSING").containsEntry("verbs", "LOADED");
        assertThat(out.get("cm.message")).contains("rdma_create_event_channel").contains(notCm.toString());
    }

    @Test
    void deniedNativeAccessIsNativeAccessDisabledForTheCmToo() throws Exception {
        Map<String, String> out = ProviderUnavailableTest.forked(ForkedCmLoad.class, "--illegal-native-access=deny");

        assertThat(out).containsEntry("cm", "NATIVE_ACCESS_DISABLED");
        assertThat(out.get("cm.message")).contains(ENABLE);
    }

    @Test
    void theSystemLibrdmacmLoadsInAFreshJvm() throws Exception {
        Map<String, String> out = ProviderUnavailableTest.forked(ForkedCmLoad.class, ENABLE);

        assertThat(out).containsEntry("cm", "LOADED").containsEntry("verbs", "LOADED");
    }
}
