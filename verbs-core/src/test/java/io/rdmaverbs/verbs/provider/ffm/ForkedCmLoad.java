package io.rdmaverbs.verbs.provider.ffm;

import io.rdmaverbs.verbs.provider.ProviderUnavailableException;

/**
 * Run in a fresh JVM by {@link RdmaCmUnavailableTest}: prints what loading librdmacm says under that
 * JVM's flags and properties, and whether the verbs still load after it.
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
        try {
            NativeVerbsProvider.load();
            System.out.println("verbs=LOADED");
        } catch (ProviderUnavailableException e) {
            System.out.println("verbs=" + e.reason());
        } catch (Throwable t) {
            System.out.println("verbs=THREW " + t);
        }
    }
}
