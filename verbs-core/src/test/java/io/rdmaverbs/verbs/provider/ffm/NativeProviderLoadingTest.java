package io.rdmaverbs.verbs.provider.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.attr.NodeType;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.ProviderUnavailableException;
import io.rdmaverbs.verbs.provider.ProviderUnavailableException.Reason;

import org.junit.jupiter.api.Test;

/** Loading the installed libibverbs in this JVM, and what it reports on a host with or without devices. */
class NativeProviderLoadingTest {

    private static final Path SYSFS = Path.of("/sys/class/infiniband");

    @Test
    void theInstalledLibraryLoadsAndIsReportedAvailable() {
        NativeVerbsProvider provider = NativeVerbsProvider.load();
        NativeVerbsProvider.Availability availability = NativeVerbsProvider.availability();

        assertThat(provider.name()).isEqualTo("native");
        assertThat(availability.available()).isTrue();
        assertThat(availability.reason()).isNull();
        assertThat(availability.message()).contains("libibverbs");
    }

    @Test
    void everyLoadReturnsTheOneProviderOfTheProcess() {
        assertThat(NativeVerbsProvider.load()).isSameAs(NativeVerbsProvider.load());
    }

    @Test
    void loadingTheLoadedFileAgainByItsPathReturnsTheSameProvider() {
        NativeVerbsProvider provider = NativeVerbsProvider.load();
        Path loaded = Path.of(Libibverbs.description());
        assumeThat(loaded.isAbsolute()).as("the file the dynamic linker chose is known").isTrue();

        assertThat(NativeVerbsProvider.load(loaded)).isSameAs(provider);
    }

    @Test
    void loadingAnotherLibraryOnceOneIsLoadedIsRefusedNamingBoth() {
        NativeVerbsProvider.load();
        Path other = Path.of("/opt/other-rdma-core/lib/libibverbs.so.1");

        assertThatThrownBy(() -> NativeVerbsProvider.load(other))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already loaded")
                .hasMessageContaining(other.toString())
                .hasMessageContaining("one libibverbs per process");
    }

    @Test
    void devicesAreExactlyThoseTheKernelListsInSysfs() throws IOException {
        List<String> expected = List.of();
        if (Files.isDirectory(SYSFS)) {
            try (Stream<Path> entries = Files.list(SYSFS)) {
                expected = entries.map(p -> p.getFileName().toString()).sorted().toList();
            }
        }

        List<String> names = NativeVerbsProvider.load().deviceVerbs().devices().stream().map(DeviceInfo::name).sorted()
                .toList();

        assertThat(names).isEqualTo(expected);
    }

    @Test
    void aHostWithoutAnRdmaStackHasNoDevicesRatherThanAnError() {
        assumeThat(Files.exists(SYSFS)).as("this host has /sys/class/infiniband").isFalse();

        assertThat(NativeVerbsProvider.load().deviceVerbs().devices()).isEmpty();
    }

    @Test
    void openingADeviceThatIsNotPresentFailsWithEnodevNamingIt() {
        DeviceInfo absent = new DeviceInfo("no_such_dev0", 0x1234L, NodeType.CA);

        assertThatThrownBy(() -> NativeVerbsProvider.load().deviceVerbs().openDevice(absent))
                .isInstanceOfSatisfying(VerbsException.class, e -> {
                    assertThat(e.verb()).isEqualTo("ibv_open_device");
                    assertThat(e.errno()).isEqualTo(Errno.ENODEV);
                    assertThat(e.resource()).isEqualTo("no_such_dev0");
                    assertThat(e.reason()).contains("no RDMA device named no_such_dev0");
                });
    }

    @Test
    void aSymbolTheLibraryLacksFailsOnlyTheCallThatNeedsItWithSymbolMissing() {
        MethodHandle handle = Downcalls.symbol(Linker.nativeLinker().defaultLookup(), "libc",
                "upgrade the library that should have it.", "ibv_no_such_verb", FunctionDescriptor.of(JAVA_INT, ADDRESS),
                Downcalls.ERRNO);

        assertThatThrownBy(() -> {
            int ignored = (int) handle.invokeExact(CallState.current(), MemorySegment.NULL);
        }).isInstanceOfSatisfying(ProviderUnavailableException.class, e -> {
            assertThat(e.reason()).isEqualTo(Reason.SYMBOL_MISSING);
            assertThat(e.getMessage()).contains("ibv_no_such_verb").contains("rdma-core")
                    .endsWith("upgrade the library that should have it.");
        });
    }
}
