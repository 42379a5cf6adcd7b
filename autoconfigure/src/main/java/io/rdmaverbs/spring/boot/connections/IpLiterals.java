package io.rdmaverbs.spring.boot.connections;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;

/**
 * Parses the addresses of {@code rdma.verbs.connections}: IP literals only, never a host name (a DNS
 * lookup has no place in a connection's startup), and an IPv6 link-local address with its scope, by
 * number or by interface name ({@code fe80::1%eth0}), as {@code rdma_resolve_addr(3)} needs it to pick
 * the link.
 */
final class IpLiterals {

    private IpLiterals() {
    }

    static InetAddress parse(String property, String literal) {
        int percent = literal.indexOf('%');
        String plain = percent < 0 ? literal : literal.substring(0, percent);
        InetAddress address;
        try {
            address = InetAddress.ofLiteral(plain);
        } catch (IllegalArgumentException e) {
            throw new InvalidConnectionSettingException(property, "'" + literal + "' is not an IP address literal",
                    "Set it to an IPv4 or IPv6 literal, e.g. 127.0.0.1 or fe80::1%eth0 (host names are not resolved)");
        }
        if (percent < 0) {
            return address;
        }
        String scope = literal.substring(percent + 1);
        if (!(address instanceof Inet6Address)) {
            throw new InvalidConnectionSettingException(property, "'" + literal + "' has a scope, but only an IPv6 "
                    + "address takes one", "Remove the %" + scope);
        }
        try {
            if (!scope.isEmpty() && scope.chars().allMatch(Character::isDigit)) {
                return Inet6Address.getByAddress(null, address.getAddress(), Integer.parseInt(scope));
            }
            NetworkInterface nif = NetworkInterface.getByName(scope);
            if (nif == null) {
                throw new InvalidConnectionSettingException(property, "'" + literal + "' is scoped to the network "
                        + "interface '" + scope + "', which this host does not have",
                        "Use the name or index of one of this host's interfaces (ip -6 addr shows them)");
            }
            return Inet6Address.getByAddress(null, address.getAddress(), nif);
        } catch (UnknownHostException | SocketException e) {
            throw new InvalidConnectionSettingException(property, "'" + literal + "' cannot be scoped: " + e.getMessage(),
                    "Use the name or index of one of this host's interfaces (ip -6 addr shows them)");
        }
    }
}
