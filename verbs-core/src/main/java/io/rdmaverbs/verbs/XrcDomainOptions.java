package io.rdmaverbs.verbs;

import java.nio.file.Path;

import org.jspecify.annotations.Nullable;

/**
 * How to open an XRC domain ({@code struct ibv_xrcd_init_attr}): the file whose inode names a domain
 * shared between processes (or none, for a domain private to the context), and the {@code O_CREAT} /
 * {@code O_EXCL} semantics of seed 000.
 *
 * @param file the file naming a shared domain, or {@code null} for a private one ({@code fd = -1})
 * @param create {@code O_CREAT}: create the domain when no domain exists for the inode
 * @param exclusive {@code O_EXCL}: fail ({@code EINVAL}) when a domain already exists for the inode
 */
public record XrcDomainOptions(@Nullable Path file, boolean create, boolean exclusive) {

    /** A domain private to the context. */
    public static XrcDomainOptions privateDomain() {
        return new XrcDomainOptions(null, true, false);
    }

    /** The domain shared through {@code file}, created if it does not exist yet. */
    public static XrcDomainOptions shared(Path file) {
        return new XrcDomainOptions(file, true, false);
    }

    /** A domain for {@code file} that must not exist yet. */
    public static XrcDomainOptions exclusive(Path file) {
        return new XrcDomainOptions(file, true, true);
    }

    /** The existing domain for {@code file}; {@code EAGAIN} if none exists. */
    public static XrcDomainOptions existing(Path file) {
        return new XrcDomainOptions(file, false, false);
    }
}
