package io.rdmaverbs.verbs.provider.ffm;

import io.rdmaverbs.verbs.provider.ProviderUnavailableException;

/**
 * Run in a fresh JVM by {@link ProviderUnavailableTest}: prints what {@code availability()} and
 * {@code load()} say under that JVM's flags and properties.
 */
public final class ForkedLoad {

    private ForkedLoad() {
    }

    public static void main(String[] args) {
        NativeVerbsProvider.Availability availability = NativeVerbsProvider.availability();
        System.out.println("availability=" + (availability.available() ? "AVAILABLE" : availability.reason()));
        System.out.println("availability.message=" + availability.message());
        try {
            NativeVerbsProvider.load();
            System.out.println("load=LOADED");
        } catch (ProviderUnavailableException e) {
            System.out.println("load=" + e.reason());
            System.out.println("load.message=" + e.getMessage());
        } catch (Throwable t) {
            System.out.println("load=THREW " + t);
        }
    }
}
