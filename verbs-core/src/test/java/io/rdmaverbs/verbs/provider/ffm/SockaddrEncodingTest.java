package io.rdmaverbs.verbs.provider.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HexFormat;
import java.util.Optional;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link Sockaddr} against what C writes for the same address ({@code src/test/c/sockaddr_bytes.c}:
 * {@code inet_pton}, {@code htons}, {@code if_nametoindex}), byte for byte over the whole
 * {@code sockaddr_storage}, and decoding back.
 */
class SockaddrEncodingTest {

    private static Path program;

    @BeforeAll
    static void compile() throws IOException {
        Optional<String> unavailable = CCompiler.unavailable();
        assumeTrue(unavailable.isEmpty(), () -> "sockaddr comparison skipped: " + unavailable.orElseThrow());
        program = CCompiler.program("sockaddr_bytes.c");
    }

    @Test
    void anIpv4AddressIsEncodedAsInetPtonAndHtonsWouldWriteIt() throws IOException {
        assertThat(javaBytes(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 7471)))
                .isEqualTo(cBytes("127.0.0.1", "7471"));
        assertThat(javaBytes(new InetSocketAddress(InetAddress.getByName("198.51.100.254"), 65535)))
                .isEqualTo(cBytes("198.51.100.254", "65535"));
    }

    @Test
    void anIpv6AddressWithoutScopeIsEncodedAsInetPtonWouldWriteIt() throws IOException {
        assertThat(javaBytes(new InetSocketAddress(InetAddress.getByName("::1"), 7471)))
                .isEqualTo(cBytes("::1", "7471"));
        assertThat(javaBytes(new InetSocketAddress(InetAddress.getByName("fd00::2"), 1)))
                .isEqualTo(cBytes("fd00::2", "1"));
    }

    @Test
    void aLinkLocalAddressCarriesItsInterfaceIndexAsTheScopeIdLikeIfNametoindex() throws IOException {
        Inet6Address linkLocal = linkLocalAddress();
        String iface = linkLocal.getScopedInterface().getName();
        // The form a user writes in configuration: fe80::...%eth0.
        InetAddress parsed = InetAddress.getByName(linkLocal.getHostAddress().replaceAll("%.*", "") + "%" + iface);

        byte[] java = javaBytes(new InetSocketAddress(parsed, 7471));

        assertThat(java).isEqualTo(cBytes(parsed.getHostAddress().replaceAll("%.*", ""), "7471", iface));
        assertThat(readScopeId(java)).isEqualTo(linkLocal.getScopedInterface().getIndex()).isNotZero();
    }

    @Test
    void aDecodedLinkLocalAddressNamesItsInterfaceAgain() throws IOException {
        Inet6Address linkLocal = linkLocalAddress();
        InetSocketAddress address = new InetSocketAddress(linkLocal, 4791);

        try (Arena arena = Arena.ofConfined()) {
            InetSocketAddress decoded = Sockaddr.decode(Sockaddr.encode(address, arena)).orElseThrow();

            assertThat(decoded).isEqualTo(address);
            assertThat(((Inet6Address) decoded.getAddress()).getScopedInterface())
                    .isEqualTo(linkLocal.getScopedInterface());
        }
    }

    @Test
    void ipv4AndIpv6AddressesDecodeToWhatWasEncoded() throws IOException {
        for (String host : new String[] {"127.0.0.1", "203.0.113.3", "::1", "2001:db8::7"}) {
            InetSocketAddress address = new InetSocketAddress(InetAddress.getByName(host), 18515);
            try (Arena arena = Arena.ofConfined()) {
                assertThat(Sockaddr.decode(Sockaddr.encode(address, arena))).contains(address);
            }
        }
    }

    @Test
    void aLinkLocalAddressWithoutScopeDecodesWithoutAScopeSuffix() throws IOException {
        InetSocketAddress unscoped = new InetSocketAddress(InetAddress.getByName("fe80::5054:ff:fe00:b"), 48613);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment encoded = Sockaddr.encode(unscoped, arena);
            assertThat(SockaddrIn6.SCOPE_ID.get(encoded)).isZero();

            InetSocketAddress decoded = Sockaddr.decode(encoded).orElseThrow();

            assertThat(decoded).isEqualTo(unscoped);
            assertThat(decoded.getAddress().getHostAddress()).isEqualTo("fe80:0:0:0:5054:ff:fe00:b");
        }
    }

    @Test
    void anUnspecifiedFamilyDecodesToNothingAndAnUnresolvedNameIsRefused() {
        try (Arena arena = Arena.ofConfined()) {
            assertThat(Sockaddr.decode(arena.allocate(SockaddrStorage.LAYOUT))).isEmpty();
            assertThatThrownBy(() -> Sockaddr.encode(InetSocketAddress.createUnresolved("peer.example", 1), arena))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("unresolved");
        }
    }

    private static int readScopeId(byte[] storage) {
        try (Arena arena = Arena.ofConfined()) {
            return SockaddrIn6.SCOPE_ID.get(arena.allocateFrom(ValueLayout.JAVA_BYTE, storage));
        }
    }

    /* A link-local address of this host's interfaces, as Java reports it (with its scoped interface). */
    private static Inet6Address linkLocalAddress() throws SocketException {
        for (NetworkInterface iface : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            for (InetAddress a : Collections.list(iface.getInetAddresses())) {
                if (a instanceof Inet6Address v6 && v6.isLinkLocalAddress() && v6.getScopedInterface() != null) {
                    return v6;
                }
            }
        }
        assumeTrue(false, "no interface of this host has an IPv6 link-local address");
        throw new AssertionError();
    }

    private static byte[] javaBytes(InetSocketAddress address) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment storage = Sockaddr.encode(address, arena);
            assertThat(storage.byteSize()).isEqualTo(128);
            return storage.toArray(ValueLayout.JAVA_BYTE);
        }
    }

    private static byte[] cBytes(String... args) throws IOException {
        return HexFormat.of().parseHex(CCompiler.output(program, args).strip());
    }
}
