package io.rdmaverbs.spring.boot.autoconfigure.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The Java examples of a page and the output the page quotes for them.
 *
 * <p>A page marks an example with an HTML comment (invisible once rendered) right before its fenced
 * block:
 * <pre>
 * &lt;!-- example: release-rules
 * static final Set&lt;AccessFlag&gt; LOCAL = EnumSet.of(AccessFlag.LOCAL_WRITE);   (hidden code, optional)
 * --&gt;
 * ```java
 * pd.close();
 * ```
 * ```
 * CloseRefusedException: ...                                           (the quoted output, optional)
 * ```
 * </pre>
 * Every marked block with the same program name (here {@code release-rules}) is one program, in page
 * order; the hidden lines run before the visible ones and carry what the page leaves to the prose
 * (a setup, a declaration). {@code example: name, compile only} marks a program that is compiled but
 * not run, for snippets whose context is an application; {@code example: name, messages only} one
 * whose exceptions are quoted by their message alone. A marker may also stand before an output
 * block alone: its hidden code is then the example whose output the page quotes.
 */
final class MarkdownExamples {

    private static final Pattern FENCE = Pattern.compile("^(\\s*)```\\s*([\\w-]*)\\s*$");
    private static final Pattern MARKER = Pattern.compile(
            "^\\s*<!--\\s*example:\\s*([\\w-]+)\\s*(,\\s*(compile only|messages only))?\\s*(-->)?\\s*$");

    /** A fenced block: its language ("" for none) and its lines; {@code line} is the page line of its first line. */
    record Block(String language, int line, List<String> lines) {
    }

    /** One marked step of a program: hidden code (page lines from {@code hiddenLine}), a visible block, its quoted output. */
    record Unit(int line, int hiddenLine, List<String> hidden, @Nullable Block code, @Nullable Block output) {
    }

    /** The units of one program, in page order. */
    record Program(String page, String name, @Nullable String mode, List<Unit> units) {

        boolean compileOnly() {
            return "compile only".equals(mode);
        }

        /** An exception is quoted by its message alone, as prose quotes it, not as {@code SimpleName: message}. */
        boolean messagesOnly() {
            return "messages only".equals(mode);
        }

        int line() {
            return units.getFirst().line();
        }
    }

    private final String page;
    private final Map<String, Program> programs = new LinkedHashMap<>();
    private final List<Block> unmarkedJava = new ArrayList<>();
    private final List<Block> unmarkedOutput = new ArrayList<>();

    private MarkdownExamples(String page) {
        this.page = page;
    }

    static MarkdownExamples of(Path file) throws IOException {
        return parse(file.getFileName().toString(), Files.readAllLines(file, StandardCharsets.UTF_8));
    }

    static MarkdownExamples parse(String page, List<String> lines) {
        MarkdownExamples examples = new MarkdownExamples(page);
        int i = 0;
        while (i < lines.size()) {
            Matcher marker = MARKER.matcher(lines.get(i));
            if (marker.matches()) {
                i = examples.unit(lines, i, marker);
                continue;
            }
            Matcher fence = FENCE.matcher(lines.get(i));
            if (fence.matches()) {
                Block block = block(lines, i, fence);
                if (block.language().equals("java")) {
                    examples.unmarkedJava.add(block);
                }
                else if (isOutput(block)) {
                    examples.unmarkedOutput.add(block);
                }
                i = after(block);
                continue;
            }
            i++;
        }
        return examples;
    }

    String page() {
        return page;
    }

    List<Program> programs() {
        return List.copyOf(programs.values());
    }

    /** The ```java blocks no marker claims: examples nobody checks. */
    List<Block> unmarkedJava() {
        return List.copyOf(unmarkedJava);
    }

    /** The output blocks (``` or ```text) no marker claims: quotes no example produces. */
    List<Block> unmarkedOutput() {
        return List.copyOf(unmarkedOutput);
    }

    private int unit(List<String> lines, int at, Matcher marker) {
        int i = at + 1;
        List<String> hidden = new ArrayList<>();
        if (marker.group(4) == null) {
            while (!lines.get(i).strip().equals("-->")) {
                hidden.add(lines.get(i++));
            }
            i++;
        }
        Block code = null;
        Block output = null;
        Block next = nextBlock(lines, i);
        if (next != null && next.language().equals("java")) {
            code = next;
            i = after(next);
            next = nextBlock(lines, i);
        }
        if (next != null && isOutput(next)) {
            output = next;
            i = after(next);
        }
        Program program = programs.computeIfAbsent(marker.group(1),
                name -> new Program(page, name, marker.group(3), new ArrayList<>()));
        program.units().add(new Unit(at + 1, at + 2, hidden, code, output));
        return i;
    }

    private static boolean isOutput(Block block) {
        return block.language().isEmpty() || block.language().equals("text");
    }

    /** The fenced block starting at {@code from}, after blank lines only; else null. */
    private static @Nullable Block nextBlock(List<String> lines, int from) {
        int i = from;
        while (i < lines.size() && lines.get(i).isBlank()) {
            i++;
        }
        if (i == lines.size()) {
            return null;
        }
        Matcher fence = FENCE.matcher(lines.get(i));
        return fence.matches() ? block(lines, i, fence) : null;
    }

    /** The index of the line after the block's closing fence. */
    private static int after(Block block) {
        return block.line() + block.lines().size();
    }

    /** The block opened at index {@code open}; its {@code line} is the 1-based page line of its first content line. */
    private static Block block(List<String> lines, int open, Matcher fence) {
        String indent = fence.group(1);
        List<String> content = new ArrayList<>();
        int i = open + 1;
        while (i < lines.size() && !lines.get(i).strip().equals("```")) {
            String line = lines.get(i++);
            content.add(line.startsWith(indent) ? line.substring(indent.length()) : line.strip());
        }
        return new Block(fence.group(2), open + 2, content);
    }
}
