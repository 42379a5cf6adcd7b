package io.rdmaverbs.verbs.provider.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;

import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The real librdmacm of this host. Without the rdma_ucm kernel module ({@code /sys/class/misc/rdma_cm}
 * absent, as on a build machine with no RDMA device) librdmacm's first step fails and every call that
 * needs the kernel answers {@code ENODEV}: those answers are asserted, not skipped. With the module
 * (the soft-RoCE guest) the channel round trip runs instead.
 */
class RdmaCmNativeTest {

    private static RdmaCm cm;

    @BeforeAll
    static void load() {
        cm = RdmaCm.load();
    }

    private static boolean kernelCm() {
        return Files.exists(RdmaCm.UCMA_ABI_VERSION);
    }

    @Test
    void rdmaEventStrNamesEveryEventTypeAsTheHeaderSpellsIt() {
        for (RdmaCmEventType type : RdmaCmEventType.values()) {
            assertThat(cm.eventName(type.ordinal())).isEqualTo(type.cName());
        }
        assertThat(cm.eventName(RdmaCmEventType.values().length)).isEqualTo("UNKNOWN EVENT");
    }

    @Test
    void withoutTheRdmaUcmModuleAnEventChannelIsRefusedWithEnodevAndAHintToLoadIt() {
        assumeFalse(kernelCm(), "rdma_ucm is loaded here: the round trip below runs instead");

        assertThatThrownBy(cm::createEventChannel).isInstanceOfSatisfying(VerbsException.class, e -> {
            assertThat(e.verb()).isEqualTo("rdma_create_event_channel");
            assertThat(e.errno()).isEqualTo(Errno.ENODEV);
            assertThat(e.getMessage()).contains("modprobe rdma_ucm").contains("/sys/class/misc/rdma_cm");
        });
    }

    @Test
    void withoutTheRdmaUcmModuleAnIdOfEitherPortSpaceIsRefusedWithEnodev() {
        assumeFalse(kernelCm(), "rdma_ucm is loaded here");

        for (int portSpace : new int[] {RdmaCmId.RDMA_PS_TCP, RdmaCmId.RDMA_PS_UDP}) {
            // A NULL channel is rdma_create_id's synchronous mode; it needs the kernel all the same.
            assertThatThrownBy(() -> cm.createId(MemorySegment.NULL, MemorySegment.NULL, portSpace))
                    .isInstanceOfSatisfying(VerbsException.class, e -> {
                        assertThat(e.verb()).isEqualTo("rdma_create_id");
                        assertThat(e.errno()).isEqualTo(Errno.ENODEV);
                    });
        }
    }

    @Test
    void withoutTheRdmaUcmModuleRdmaGetDevicesFailsWithEnodevRatherThanAnEmptyList() {
        assumeFalse(kernelCm(), "rdma_ucm is loaded here");

        assertThatThrownBy(cm::devices).isInstanceOfSatisfying(VerbsException.class, e -> {
            assertThat(e.verb()).isEqualTo("rdma_get_devices");
            assertThat(e.errno()).isEqualTo(Errno.ENODEV);
        });
    }

    @Test
    void anEventChannelRoundTripsAndItsFdHasNothingToReadBeforeAnyEvent() throws Exception {
        assumeTrue(kernelCm(), "no rdma_ucm here: the ENODEV answers above are asserted instead");
        MemorySegment channel = cm.createEventChannel();
        try (Arena arena = Arena.ofConfined()) {
            int fd = RdmaCm.fd(channel);
            assertThat(fd).isNotNegative();
            MemorySegment pollfd = arena.allocate(PollFd.LAYOUT);
            PollFd.FD.set(pollfd, fd);
            PollFd.EVENTS.set(pollfd, PollFd.POLLIN);

            assertThat(Libc.poll(CallState.current(), pollfd, 1, 0)).as("ready descriptors").isZero();

            MemorySegment id = cm.createId(channel, MemorySegment.NULL, RdmaCmId.RDMA_PS_TCP);
            assertThat(RdmaCm.localAddress(id)).as("nothing bound yet").isEmpty();
            assertThat(RdmaCmId.CHANNEL.get(id).address()).isEqualTo(channel.address());
            cm.destroyId(id);
        } finally {
            cm.destroyEventChannel(channel);
        }
    }

    @Test
    void aNullIdOrChannelIsRefusedInJavaBeforeAnyNativeCall() {
        assertThatThrownBy(() -> cm.destroyId(MemorySegment.NULL)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rdma_destroy_id");
        assertThatThrownBy(() -> cm.destroyEventChannel(MemorySegment.NULL))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rdma_destroy_event_channel");
        assertThatThrownBy(() -> cm.listen(MemorySegment.NULL, 8)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cm.reject(MemorySegment.NULL, new byte[256]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("255");
    }
}
