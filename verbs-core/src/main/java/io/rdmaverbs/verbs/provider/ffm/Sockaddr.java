package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * {@link InetSocketAddress} to and from the {@code struct sockaddr_in}/{@code sockaddr_in6} librdmacm
 * reads and writes. An IPv6 address keeps its scope: {@code fe80::1%eth0} becomes {@code sin6_scope_id}
 * = {@code if_nametoindex("eth0")}, and a scope id read back names its interface again when the host
 * has it. Unresolved host names are refused: name resolution is the caller's, not a side effect here.
 */
final class Sockaddr {

    private Sockaddr() {
    }

    /** A zeroed {@code sockaddr_storage} in {@code arena} holding {@code address}. */
    static MemorySegment encode(InetSocketAddress address, Arena arena) {
        if (address.isUnresolved()) {
            throw new IllegalArgumentException(address + " is unresolved; resolve the host name before binding "
                    + "or connecting to it");
        }
        MemorySegment storage = arena.allocate(SockaddrStorage.LAYOUT);
        short port = (short) address.getPort();
        switch (address.getAddress()) {
            case Inet4Address v4 -> {
                SockaddrIn.FAMILY.set(storage, SockaddrIn.AF_INET);
                SockaddrIn.PORT.set(storage, port);
                MemorySegment.copy(v4.getAddress(), 0, storage, ValueLayout.JAVA_BYTE, SockaddrIn.ADDR, 4);
            }
            case Inet6Address v6 -> {
                SockaddrIn6.FAMILY.set(storage, SockaddrIn6.AF_INET6);
                SockaddrIn6.PORT.set(storage, port);
                MemorySegment.copy(v6.getAddress(), 0, storage, ValueLayout.JAVA_BYTE, SockaddrIn6.ADDR, 16);
                SockaddrIn6.SCOPE_ID.set(storage, scopeId(v6));
            }
            default -> throw new IllegalArgumentException("not an IPv4 or IPv6 address: " + address);
        }
        return storage;
    }

    /**
     * The address in {@code sockaddr} (at least {@code sockaddr_storage} long, as {@code route.addr.src_addr}
     * is), or empty when its family is {@code AF_UNSPEC}: nothing bound or resolved yet.
     */
    static Optional<InetSocketAddress> decode(MemorySegment sockaddr) {
        short family = SockaddrStorage.FAMILY.get(sockaddr);
        try {
            if (family == SockaddrIn.AF_INET) {
                byte[] bytes = sockaddr.asSlice(SockaddrIn.ADDR, 4).toArray(ValueLayout.JAVA_BYTE);
                return Optional.of(new InetSocketAddress(InetAddress.getByAddress(bytes),
                        Short.toUnsignedInt(SockaddrIn.PORT.get(sockaddr))));
            }
            if (family == SockaddrIn6.AF_INET6) {
                byte[] bytes = sockaddr.asSlice(SockaddrIn6.ADDR, 16).toArray(ValueLayout.JAVA_BYTE);
                return Optional.of(new InetSocketAddress(inet6(bytes, SockaddrIn6.SCOPE_ID.get(sockaddr)),
                        Short.toUnsignedInt(SockaddrIn6.PORT.get(sockaddr))));
            }
        } catch (UnknownHostException e) {
            throw new IllegalStateException("a 4- or 16-byte address was refused by InetAddress", e);
        }
        if (family == 0) {
            return Optional.empty();
        }
        throw new IllegalArgumentException("sockaddr family " + family + " is neither AF_INET nor AF_INET6");
    }

    /* Java resolves "%eth0" to the interface when parsing, so the index is already known here. */
    private static int scopeId(Inet6Address address) {
        NetworkInterface scoped = address.getScopedInterface();
        return scoped != null ? scoped.getIndex() : address.getScopeId();
    }

    private static Inet6Address inet6(byte[] bytes, int scopeId) throws UnknownHostException {
        if (scopeId == 0) {
            // No scope (a passive id's peer address, as rdma_get_peer_addr(3) gives it): a negative scope
            // id leaves it unset, so reports print no "%0".
            return Inet6Address.getByAddress(null, bytes, -1);
        }
        try {
            NetworkInterface scoped = NetworkInterface.getByIndex(scopeId);
            if (scoped != null) {
                return Inet6Address.getByAddress(null, bytes, scoped);
            }
        } catch (SocketException | UnknownHostException e) {
            // The interface went away or has no IPv6 address: keep the number, which still names the link.
        }
        return Inet6Address.getByAddress(null, bytes, scopeId);
    }
}
