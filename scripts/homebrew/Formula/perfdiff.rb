# Homebrew formula, in a tap's layout (Formula/perfdiff.rb). Until a
# release has a tarball and its checksum, it builds the main branch:
# brew install --HEAD. OWNER is the GitHub account the project lives
# under, as in the README's GitHub Action example.
class Perfdiff < Formula
  desc "Compare profiles of two builds and tell real slowdowns from noise"
  homepage "https://github.com/OWNER/perfdiff"
  head "https://github.com/OWNER/perfdiff.git", branch: "main"

  depends_on "cmake" => :build
  depends_on "pkgconf" => :build
  depends_on "cjson"
  depends_on "libcsv"
  depends_on "libpq"
  depends_on "libxlsxwriter"
  depends_on "nettle"
  depends_on "sqlite"
  depends_on "yajl"

  uses_from_macos "bzip2"
  uses_from_macos "expat"
  uses_from_macos "zlib"

  on_linux do
    depends_on "elfutils"
  end

  # cmocka and llvm, in the README's brew line too, are for the test
  # suite and its Windows and macOS symbol checks, not for perfdiff.
  def install
    system "cmake", "-S", ".", "-B", "build", "-DPD_TESTS=OFF", *std_cmake_args
    system "cmake", "--build", "build"
    system "cmake", "--install", "build"
    generate_completions_from_executable(bin/"perfdiff", "completion")
  end

  test do
    (testpath/"base.folded").write <<~EOS
      main;parse 1000
      main;read 2000
      main;other 500
    EOS
    (testpath/"cand.folded").write <<~EOS
      main;parse 1500
      main;read 2000
      main;other 500
    EOS
    # exit 1: a regression, as diff(1) says the files differ
    output = shell_output("#{bin}/perfdiff base.folded cand.folded", 1)
    assert_match(/^regressed: parse \+50\.0 % \(self\)/, output)
    output = shell_output("#{bin}/perfdiff base.folded base.folded", 0)
    assert_match "the two profiles are identical", output
    assert_match "complete -", shell_output("#{bin}/perfdiff completion bash")
  end
end
