package io.rdmaverbs.spring.boot.autoconfigure.diagnostics;

import io.rdmaverbs.spring.boot.connections.ListenerBindException;
import io.rdmaverbs.spring.boot.resources.DeclaredResourceCreationException;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * A verb failed while a bean was created: name the resource (a declared one by its property, any other
 * by its bean), the verb and the errno, and say what that errno usually means for a create.
 */
final class VerbFailureAnalyzer extends AbstractFailureAnalyzer<VerbsException> {

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, VerbsException cause) {
        if (findCause(rootFailure, ListenerBindException.class) != null) {
            // Not a create: ListenerBindFailureAnalyzer names the listener's property, whatever the analyzers' order.
            return null;
        }
        DeclaredResourceCreationException declared = findCause(rootFailure, DeclaredResourceCreationException.class);
        String what;
        String values;
        if (declared != null) {
            what = "The RDMA " + declared.kind() + " '" + declared.key() + "' declared at " + declared.property();
            values = "the values declared at " + declared.property();
        } else {
            String bean = beanName(rootFailure);
            what = bean == null ? "An RDMA resource" : "The bean '" + bean + "'";
            values = "the values the application passes to " + cause.verb();
        }
        String description = what + " could not be created: " + cause.getMessage() + ".";
        return new FailureAnalysis(description, action(cause, values), cause);
    }

    private static String action(VerbsException cause, String values) {
        Errno errno = cause.errno();
        String manPage = cause.verb() + "(3)";
        if (Errno.ENOMEM.equals(errno)) {
            return "The device or the kernel has no room for it: lower " + values + " (entries, max-wr, size), "
                    + "raise RLIMIT_MEMLOCK (ulimit -l unlimited, or LimitMEMLOCK=infinity in a systemd unit), or free "
                    + "what other processes hold on the device (rdma resource show).";
        }
        if (Errno.EACCES.equals(errno) || Errno.EPERM.equals(errno)) {
            return "This user may not use the device: check the permissions of /dev/infiniband/uverbs* (the rdma "
                    + "group or a udev rule).";
        }
        if (Errno.EIO.equals(errno) || Errno.ENODEV.equals(errno)) {
            return "The device failed or went away (a fatal firmware error, a hot unplug): check it with ibv_devinfo "
                    + "and the kernel log, then start again.";
        }
        return "Check " + values + " against what " + manPage + " says of " + (errno == null ? "this failure"
                : errno.name()) + " and what the device reports (ibv_devinfo -v).";
    }

    /** The innermost bean whose creation failed: the one the failing verb belongs to. */
    private static @Nullable String beanName(Throwable failure) {
        String name = null;
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof BeanCreationException creation && creation.getBeanName() != null) {
                name = creation.getBeanName();
            }
        }
        return name;
    }
}
