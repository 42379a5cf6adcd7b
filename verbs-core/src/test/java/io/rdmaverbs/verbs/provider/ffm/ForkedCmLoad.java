package io.rdmaverbs.verbs.provider.ffm;

import io.rdmaverbs.verbs.provider.ProviderUnavailableException;

/**
 * Run in a fresh JVM by {@link RdmaCmUnavailableTest}: prints what loading librdmacm says under that
 * JVM's flags and properties, whether the verbs still load after it, what the provider's
 * {@code connectionVerbs()} says, and whether a device verb still answers after that.
 */
public final class ForkedCmLoad {

    private ForkedCmLoad() {
    }

    public static void main(String[] args) {
        try {
            RdmaCm.load();
            System.out.println("cm=LOADED");
        } catch (ProviderUnavailableException e) {
            System.out.println("cm=" + e.reason());
            System.out.println("cm.message=" + e.getMessage());
        } catch (Throwable t) {
            System.out.println("cm=THREW " + t);
        }
        NativeVerbsProvider verbs;
        try {
            verbs = NativeVerbsProvider.load();
            System.out.println("verbs=LOADED");
        } catch (ProviderUnavailableException e) {
            System.out.println("verbs=" + e.reason());
            return;
        } catch (Throwable t) {
            System.out.println("verbs=THREW " + t);
            return;
        }
        try {
            verbs.connectionVerbs();
            System.out.println("connectionVerbs=AVAILABLE");
        } catch (ProviderUnavailableException e) {
            System.out.println("connectionVerbs=" + e.reason());
            System.out.println("connectionVerbs.message=" + e.getMessage());
        } catch (Throwable t) {
            System.out.println("connectionVerbs=THREW " + t);
        }
        try {
            System.out.println("devices.after=" + verbs.deviceVerbs().devices().size());
        } catch (Throwable t) {
            System.out.println("devices.after=THREW " + t);
        }
    }
}
