package io.rdmaverbs.verbs;

import java.nio.file.Path;
import java.util.Objects;

import io.rdmaverbs.verbs.attr.OpenFlags;

import org.jspecify.annotations.Nullable;

/**
 * What {@link DeviceContext#openXrcDomain(XrcDomainSpec)} opens ({@code struct ibv_xrcd_init_attr},
 * {@code ibv_open_xrcd(3)}): the inode that names a domain shared between processes (through a file
 * the graph opens and closes, or a descriptor the caller keeps), or none for a domain private to the
 * context, and the {@code O_CREAT} / {@code O_EXCL} semantics of {@code oflags}.
 *
 * <pre>{@code
 * ctx.openXrcDomain(XrcDomainSpec.shared(Path.of("/run/app/xrcd.key")), "xrcd");
 * ctx.openXrcDomain(XrcDomainSpec.onDescriptor(fd).withExclusive(true));
 * }</pre>
 *
 * @param file the file naming a shared domain, or {@code null} (a private domain, or one named by
 *        {@code descriptor})
 * @param descriptor an open descriptor the caller owns naming a shared domain, or -1 ({@code fd = -1})
 * @param create {@code O_CREAT}: create the domain when no domain exists for the inode
 * @param exclusive {@code O_EXCL}: with {@code create}, fail ({@code EINVAL}) when a domain already exists
 *        for the inode
 */
public record XrcDomainSpec(@Nullable Path file, int descriptor, boolean create, boolean exclusive) {

    /** Refuses a negative descriptor, a file and a descriptor at once, and O_EXCL without O_CREAT. */
    public XrcDomainSpec {
        if (descriptor < -1) {
            throw new IllegalArgumentException("descriptor must be an open file descriptor or -1, was " + descriptor);
        }
        if (file != null && descriptor != -1) {
            throw new IllegalArgumentException("file and descriptor both name the domain's inode: give one, was file "
                    + file + " and descriptor " + descriptor);
        }
        if (exclusive && !create) {
            throw new IllegalArgumentException("exclusive (O_EXCL) needs create (O_CREAT): ibv_open_xrcd(3) defines "
                    + "O_EXCL only together with O_CREAT");
        }
    }

    /** A domain private to the context (no inode). */
    public static XrcDomainSpec privateDomain() {
        return new XrcDomainSpec(null, -1, true, false);
    }

    /** The domain shared through {@code file}, created if it does not exist yet. */
    public static XrcDomainSpec shared(Path file) {
        return new XrcDomainSpec(Objects.requireNonNull(file, "file"), -1, true, false);
    }

    /** A new domain for {@code file}; {@code EINVAL} if one exists already. */
    public static XrcDomainSpec exclusive(Path file) {
        return new XrcDomainSpec(Objects.requireNonNull(file, "file"), -1, true, true);
    }

    /** The existing domain for {@code file}; {@code EAGAIN} if none exists. */
    public static XrcDomainSpec existing(Path file) {
        return new XrcDomainSpec(Objects.requireNonNull(file, "file"), -1, false, false);
    }

    /**
     * The domain shared through the inode of {@code fd}, a descriptor the caller owns and keeps (the graph
     * does not close it), created if it does not exist yet.
     */
    public static XrcDomainSpec onDescriptor(int fd) {
        if (fd < 0) {
            throw new IllegalArgumentException("fd must be an open file descriptor, was " + fd
                    + " (use XrcDomainSpec.privateDomain() for a domain without an inode)");
        }
        return new XrcDomainSpec(null, fd, true, false);
    }

    /** The same domain, with or without {@code O_CREAT}. */
    public XrcDomainSpec withCreate(boolean createIfAbsent) {
        return new XrcDomainSpec(file, descriptor, createIfAbsent, exclusive);
    }

    /** The same domain, with or without {@code O_EXCL} (which needs {@code O_CREAT}). */
    public XrcDomainSpec withExclusive(boolean failIfPresent) {
        return new XrcDomainSpec(file, descriptor, create, failIfPresent);
    }

    /** Whether no inode names the domain, so it is private to the context. */
    public boolean isPrivate() {
        return file == null && descriptor == -1;
    }

    /** The {@link OpenFlags} bits of {@code ibv_xrcd_init_attr.oflags}. */
    public int openFlags() {
        return (create ? OpenFlags.CREATE : 0) | (exclusive ? OpenFlags.EXCLUSIVE : 0);
    }
}
