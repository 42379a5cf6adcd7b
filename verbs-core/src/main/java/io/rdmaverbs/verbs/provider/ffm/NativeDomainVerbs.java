package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.InlineVerbs.isNull;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.errnoOfNull;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.failure;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.released;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.DomainVerbs;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.XrcdHandle;

/**
 * The domain verbs of {@link NativeVerbsProvider}: protection domains, and XRC domains with the
 * file whose descriptor names a domain shared between processes.
 */
final class NativeDomainVerbs implements DomainVerbs {

    private final NativeVerbsProvider provider;

    NativeDomainVerbs(NativeVerbsProvider provider) {
        this.provider = provider;
    }

    @Override
    public PdHandle allocPd(ContextHandle context) {
        NativeContext c = provider.live(context, NativeContext.class);
        MemorySegment state = CallState.current();
        MemorySegment pd = Libibverbs.ibv_alloc_pd(state, c.pointer());
        if (isNull(pd)) {
            throw failure("ibv_alloc_pd", c, errnoOfNull(state), "could not allocate a protection domain on "
                    + c.deviceName());
        }
        return new NativePd(provider, pd, c);
    }

    @Override
    public void deallocPd(PdHandle pd) {
        NativePd p = provider.live(pd, NativePd.class);
        MemorySegment state = CallState.current();
        released("ibv_dealloc_pd", p, Libibverbs.ibv_dealloc_pd(state, p.pointer()), state,
                "QPs, SRQs, MRs or address handles still use it: destroy them first",
                "could not deallocate the protection domain");
    }

    @Override
    public int openFile(Path file, boolean create) {
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            int flags = Libc.O_RDONLY | (create ? Libc.O_CREAT : 0);
            int fd = Libc.open(state, arena.allocateFrom(file.toString()), flags, 0600);
            if (fd < 0) {
                int errno = CallState.errno(state);
                throw new VerbsException("open", file.toString(), Errno.of(errno), "could not open " + file
                        + (create ? " (creating it if missing)" : " (it must exist: create=false)")
                        + " to name a shared XRC domain");
            }
            return fd;
        }
    }

    @Override
    public void closeFile(int fd) {
        MemorySegment state = CallState.current();
        if (Libc.close(state, fd) != 0) {
            throw new VerbsException("close", "fd " + fd, Errno.of(CallState.errno(state)),
                    "could not close descriptor " + fd);
        }
    }

    @Override
    public XrcdHandle openXrcd(ContextHandle context, int fd, int oflags) {
        NativeContext c = provider.live(context, NativeContext.class);
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(IbvXrcdInitAttr.LAYOUT);
            IbvXrcdInitAttr.COMP_MASK.set(attr, IbvXrcdInitAttr.IBV_XRCD_INIT_ATTR_FD | IbvXrcdInitAttr.IBV_XRCD_INIT_ATTR_OFLAGS);
            IbvXrcdInitAttr.FD.set(attr, fd);
            IbvXrcdInitAttr.OFLAGS.set(attr, oflags);
            MemorySegment xrcd = InlineVerbs.ibv_open_xrcd(state, c.pointer(), attr);
            if (isNull(xrcd)) {
                int errno = errnoOfNull(state);
                Errno e = Errno.of(errno);
                String why;
                if (e.equals(Errno.EOPNOTSUPP)) {
                    why = "device " + c.deviceName() + " does not support XRC (IBV_DEVICE_XRC not set)";
                } else if (e.equals(Errno.EEXIST)) {
                    why = "an XRC domain for the file of fd " + fd + " already exists and O_EXCL was given";
                } else if (e.equals(Errno.ENOENT) || e.equals(Errno.EINVAL) && (oflags & Libc.O_CREAT) == 0) {
                    why = "no XRC domain exists for the file of fd " + fd + " yet: open it with O_CREAT";
                } else if (e.equals(Errno.EBADF)) {
                    why = "fd " + fd + " is not an open descriptor";
                } else {
                    why = "could not open an XRC domain on " + c.deviceName();
                }
                throw failure("ibv_open_xrcd", c, errno, why);
            }
            return new NativeXrcd(provider, xrcd, c);
        }
    }

    @Override
    public void closeXrcd(XrcdHandle xrcd) {
        NativeXrcd x = provider.live(xrcd, NativeXrcd.class);
        MemorySegment state = CallState.current();
        released("ibv_close_xrcd", x, InlineVerbs.ibv_close_xrcd(state, x.pointer()), state,
                "XRC QPs or SRQs of this process still use it: destroy them first",
                "could not close the XRC domain");
    }
}
