package io.rdmaverbs.spring.boot.autoconfigure.diagnostics;

import io.rdmaverbs.verbs.provider.ProviderUnavailableException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** The native provider cannot be used in this JVM: say whether to install a library or change a flag. */
final class ProviderUnavailableFailureAnalyzer extends AbstractFailureAnalyzer<ProviderUnavailableException> {

    private static final String SIMULATED = "set rdma.verbs.provider=simulated to run on the simulated provider, "
            + "without RDMA hardware or native code";

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ProviderUnavailableException cause) {
        String description = "The native RDMA verbs provider (rdma.verbs.provider=native, the default) cannot be "
                + "used: " + cause.getMessage();
        String action = switch (cause.reason()) {
            case LIBRARY_NOT_FOUND -> "Install libibverbs and the device providers (Debian/Ubuntu: apt-get install "
                    + "libibverbs1 ibverbs-providers; Fedora/RHEL: dnf install libibverbs), or point "
                    + "rdma.verbs.native.library-path at a libibverbs.so.1, or " + SIMULATED + ".";
            case NATIVE_ACCESS_DISABLED -> "Start the JVM with --enable-native-access=ALL-UNNAMED (for an "
                    + "executable jar, add 'Enable-Native-Access: ALL-UNNAMED' to its manifest), or " + SIMULATED + ".";
            case SYMBOL_MISSING -> "Install rdma-core 44 or newer (libibverbs1 and ibverbs-providers), or point "
                    + "rdma.verbs.native.library-path at a newer libibverbs.so.1, or " + SIMULATED + ".";
            case UNSUPPORTED_PLATFORM -> "The native provider runs on 64-bit Linux only: " + SIMULATED + ".";
            case CONNECTION_MANAGER_UNAVAILABLE -> "Install librdmacm (Debian/Ubuntu: apt-get install librdmacm1) and "
                    + "load the rdma_ucm kernel module (modprobe rdma_ucm), or " + SIMULATED + ".";
        };
        return new FailureAnalysis(description, action, cause);
    }
}
