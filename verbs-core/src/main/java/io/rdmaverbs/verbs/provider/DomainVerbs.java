package io.rdmaverbs.verbs.provider;

import java.nio.file.Path;

/**
 * Protection and XRC domains: {@code ibv_alloc_pd(3)}, {@code ibv_open_xrcd(3)}, and the file whose
 * inode names a shared XRC domain. Failures and handle checks as described on {@link VerbsProvider}.
 */
public interface DomainVerbs {

    /** {@code ibv_alloc_pd}. */
    PdHandle allocPd(ContextHandle context);

    /** {@code ibv_dealloc_pd}; EBUSY while QPs, SRQs, MRs or AHs use it. */
    void deallocPd(PdHandle pd);

    /**
     * {@code open(2)} of the file whose inode names a shared XRC domain (read-only, {@code O_CREAT}
     * when asked). The simulated provider keeps its own descriptor table.
     */
    int openFile(Path file, boolean create);

    /** {@code close(2)} of a descriptor from {@link #openFile}. */
    void closeFile(int fd);

    /**
     * {@code ibv_open_xrcd} (static inline: dispatched through {@code struct verbs_context}).
     *
     * @param fd a descriptor from {@link #openFile}, or -1 for a domain private to this context
     * @param oflags {@code O_CREAT} and/or {@code O_EXCL}
     */
    XrcdHandle openXrcd(ContextHandle context, int fd, int oflags);

    /** {@code ibv_close_xrcd}; EBUSY while XRC QPs or SRQs (this process's) use it. */
    void closeXrcd(XrcdHandle xrcd);
}
