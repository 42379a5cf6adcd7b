package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.SimUverbs.locked;
import static io.rdmaverbs.verbs.provider.simulated.SimUverbs.users;

import java.nio.file.Path;
import java.util.Objects;

import io.rdmaverbs.verbs.attr.OpenFlags;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.DomainVerbs;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.XrcdHandle;

/**
 * Protection domains and XRC domains: {@code ibv_alloc_pd}/{@code ibv_dealloc_pd} with their EBUSY
 * refcount, and {@code ibv_open_xrcd}/{@code ibv_close_xrcd} with domains shared per device by the inode
 * of the file that names them.
 */
final class SimDomains implements DomainVerbs {

    private final SimUverbs uverbs;
    private final DescriptorTable descriptors;

    SimDomains(SimUverbs uverbs, DescriptorTable descriptors) {
        this.uverbs = uverbs;
        this.descriptors = descriptors;
    }

    @Override
    public PdHandle allocPd(ContextHandle context) {
        SimContext ctx = uverbs.own(context, SimContext.class);
        uverbs.call("ibv_alloc_pd", ctx);
        SimDevice d = ctx.device;
        return locked(d, () -> {
            d.requireAlive("ibv_alloc_pd", ctx.describe());
            d.allocate(KernelObjectKind.PD, "ibv_alloc_pd", ctx.describe());
            SimPd pd = new SimPd(ctx, d.nextId(KernelObjectKind.PD));
            ctx.adopt(pd);
            return pd;
        });
    }

    @Override
    public void deallocPd(PdHandle pd) {
        SimPd p = uverbs.own(pd, SimPd.class);
        uverbs.call("ibv_dealloc_pd", p);
        SimDevice d = p.device;
        locked(d, () -> {
            p.requireUsable();
            if (!d.fatal && p.usecnt > 0) {
                throw new VerbsException("ibv_dealloc_pd", p.describe(), Errno.EBUSY, "still used by " + p.usecnt
                        + " object(s) (QPs, SRQs, MRs, AHs): " + users(p.context(), h -> usesPd(h, p))
                        + "; destroy them first");
            }
            d.free(KernelObjectKind.PD);
            p.context().release(p);
            p.markDestroyed();
        });
    }

    @Override
    public int openFile(Path file, boolean create) {
        return descriptors.openFile(Objects.requireNonNull(file, "file"), create);
    }

    @Override
    public void closeFile(int fd) {
        descriptors.closeFile(fd);
    }

    /**
     * {@code ibv_open_xrcd}, as the kernel's {@code ib_uverbs_open_xrcd} decides: a domain is shared per
     * device by inode; O_CREAT creates it, O_CREAT|O_EXCL refuses an existing one (EINVAL), no O_CREAT
     * and no domain is EAGAIN, an unknown descriptor EBADF.
     *
     * <p>{@code fd == -1} opens a new private domain whatever {@code oflags} say: the kernel skips the
     * flag checks for it and rdma-core adds none (the man page's "use O_CREAT" is advice, not a check).
     */
    @Override
    public XrcdHandle openXrcd(ContextHandle context, int fd, int oflags) {
        SimContext ctx = uverbs.own(context, SimContext.class);
        uverbs.call("ibv_open_xrcd", ctx);
        SimDevice d = ctx.device;
        return locked(d, () -> {
            if (!d.profile.supportsXrc()) {
                // rdma-core fills a provider's missing open_xrcd op with one that answers EOPNOTSUPP.
                throw new VerbsException("ibv_open_xrcd", ctx.describe(), Errno.EOPNOTSUPP, "device " + d.name()
                        + " does not support XRC (no IBV_DEVICE_XRC; soft-RoCE never does): use RC QPs or an HCA");
            }
            d.requireAlive("ibv_open_xrcd", ctx.describe());
            KernelXrcd domain;
            if (fd == -1) {
                domain = d.newPrivateDomain();
            } else {
                DescriptorTable.FileEntry file = descriptors.file(fd);
                if (file == null) {
                    throw new VerbsException("ibv_open_xrcd", ctx.describe(), Errno.EBADF, "fd " + fd
                            + " is not an open file; open the file that names the domain first (openFile)");
                }
                domain = d.domainsByInode.get(file.inode());
                boolean create = (oflags & OpenFlags.CREATE) != 0;
                if (domain == null && !create) {
                    throw new VerbsException("ibv_open_xrcd", ctx.describe(), Errno.EAGAIN, "no XRC domain exists for "
                            + file.path() + " on " + d.name() + " yet; pass O_CREAT to create it");
                }
                if (domain != null && create && (oflags & OpenFlags.EXCLUSIVE) != 0) {
                    throw new VerbsException("ibv_open_xrcd", ctx.describe(), Errno.EINVAL, "an XRC domain for "
                            + file.path() + " already exists on " + d.name() + " and O_EXCL was given; drop O_EXCL"
                            + " to share it");
                }
                if (domain == null) {
                    domain = d.newDomain(file.inode());
                    d.domainsByInode.put(file.inode(), domain);
                }
            }
            domain.opens++;
            SimXrcd xrcd = new SimXrcd(ctx, d.nextId(KernelObjectKind.XRCD), domain);
            ctx.adopt(xrcd);
            return xrcd;
        });
    }

    @Override
    public void closeXrcd(XrcdHandle xrcd) {
        SimXrcd x = uverbs.own(xrcd, SimXrcd.class);
        uverbs.call("ibv_close_xrcd", x);
        SimDevice d = x.device;
        locked(d, () -> {
            x.requireUsable();
            if (!d.fatal && x.usecnt > 0) {
                throw new VerbsException("ibv_close_xrcd", x.describe(), Errno.EBUSY, "this context still has "
                        + x.usecnt + " XRC receive QP registration(s) or XRC SRQ(s) on the domain: "
                        + users(x.context(), h -> usesXrcd(h, x)) + "; destroy them (destroyQp unregisters) first");
            }
            KernelXrcd domain = x.domain;
            if (--domain.opens == 0) {
                d.domainGone(domain);
            }
            x.context().release(x);
            x.markDestroyed();
        });
    }

    private static boolean usesPd(SimHandle h, SimPd pd) {
        return (h instanceof SimQp q && q.qp.pd == pd && !q.opened) || (h instanceof SimSrq s && s.pd == pd)
                || (h instanceof SimMr m && m.pd == pd) || (h instanceof SimAh a && a.pd == pd);
    }

    private static boolean usesXrcd(SimHandle h, SimXrcd x) {
        return (h instanceof SimQp q && q.xrcd == x) || (h instanceof SimSrq s && s.xrcd == x);
    }
}
