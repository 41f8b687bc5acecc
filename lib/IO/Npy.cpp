//===- Npy.cpp - numpy .npy files -----------------------------------------===//
//
// The reader treats every file as untrusted: each length is checked against
// the file size before anything is allocated or read, and the header's
// Python literal goes through a small bounded parser, so a corrupt file ends
// in an ember::IOError rather than a crash or a huge allocation.
//
//===----------------------------------------------------------------------===//

#include "NpyFormat.h"

#include "ember/IO/Npy.h"

#include "ember/Support/AtomicFile.h"

#include "ember/Frontend/Error.h"
#include "ember/Frontend/Tensor.h"

#include <bit>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string_view>

#include <sys/stat.h>

namespace ember::detail {
namespace {

// .npy data is little-endian and we copy it verbatim.
static_assert(std::endian::native == std::endian::little,
              "the .npy reader and writer assume a little-endian host");

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr size_t kAlign = 64;
// numpy leaves room for the first dim to grow to this many digits, so that
// appending rewrites the header in place; matching it keeps files identical.
constexpr size_t kGrowthAxisMaxDigits = 21;
constexpr int kMaxLiteralDepth = 32;

std::string quoted(const std::string &path) { return "'" + path + "'"; }

[[noreturn]] void failRead(const std::string &path, const std::string &what) {
  throw IOError("cannot read .npy file " + quoted(path) + ": " + what);
}

[[noreturn]] void failWrite(const std::string &path, const std::string &what) {
  throw IOError("cannot write .npy file " + quoted(path) + ": " + what);
}

std::string descrOf(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return "|b1";
  case DType::Int32:
    return "<i4";
  case DType::Int64:
    return "<i8";
  case DType::Float32:
    return "<f4";
  case DType::Float64:
    return "<f8";
  case DType::Float16:
    return "<f2";
  case DType::BFloat16:
    return "?"; // numpy has no bfloat16: refused by the writer
  }
  return "?";
}


/// Element count times item size, or false when it does not fit in int64.
bool byteCount(const std::vector<int64_t> &shape, size_t itemSize, int64_t &bytes) {
  int64_t n = static_cast<int64_t>(itemSize);
  for (int64_t d : shape) {
    if (d == 0) {
      bytes = 0;
      return true;
    }
  }
  for (int64_t d : shape) {
    if (n > std::numeric_limits<int64_t>::max() / d)
      return false;
    n *= d;
  }
  bytes = n;
  return true;
}

//===----------------------------------------------------------------------===//
// Header literal parser
//===----------------------------------------------------------------------===//

/// The subset of Python literals a .npy header can hold.
struct Literal {
  enum class Kind { Str, Int, Bool, None, Tuple, List, Dict } kind = Kind::None;
  std::string str;
  int64_t num = 0;
  bool numOverflow = false;
  bool flag = false;
  std::vector<Literal> items;    // Tuple, List, Dict values
  std::vector<std::string> keys; // Dict keys (strings only)
};

/// The header shown in messages: printable ASCII, escapes for the rest, cut
/// short so a 4 GiB garbage header cannot flood the message.
std::string excerpt(std::string_view text) {
  constexpr size_t kMax = 160;
  std::string out;
  for (size_t i = 0; i < text.size() && i < kMax; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
  if (text.size() > kMax)
    out += "...";
  return out;
}

class HeaderParser {
public:
  HeaderParser(const std::string &path, std::string_view text) : path_(path), text_(text) {}

  Literal parseWhole() {
    Literal value = parseValue(0);
    skipSpace();
    if (pos_ != text_.size())
      fail("unexpected text after the dictionary");
    return value;
  }

  [[noreturn]] void fail(const std::string &what) const {
    failRead(path_, "malformed header (" + what + " at offset " + std::to_string(pos_) +
                        "): \"" + excerpt(text_) + "\"");
  }

private:
  void skipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool consume(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool consumeWord(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word)
      return false;
    size_t end = pos_ + word.size();
    // "Truex" is a name, not True.
    if (end < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_'))
      return false;
    pos_ = end;
    return true;
  }

  Literal parseValue(int depth) {
    // Bounded so "((((((..." cannot exhaust the stack.
    if (depth > kMaxLiteralDepth)
      fail("nesting too deep");
    skipSpace();
    if (pos_ >= text_.size())
      fail("unexpected end");
    char c = text_[pos_];
    if (c == '{')
      return parseDict(depth);
    if (c == '(')
      return parseSequence(depth, ')', Literal::Kind::Tuple);
    if (c == '[')
      return parseSequence(depth, ']', Literal::Kind::List);
    if (c == '\'' || c == '"')
      return parseString();
    if (c == '-' || c == '+' || (c >= '0' && c <= '9'))
      return parseInt();
    Literal lit;
    if (consumeWord("True")) {
      lit.kind = Literal::Kind::Bool;
      lit.flag = true;
    } else if (consumeWord("False")) {
      lit.kind = Literal::Kind::Bool;
    } else if (consumeWord("None")) {
      lit.kind = Literal::Kind::None;
    } else {
      fail("unexpected character '" + excerpt(text_.substr(pos_, 1)) + "'");
    }
    return lit;
  }

  Literal parseString() {
    char quote = text_[pos_++];
    Literal lit;
    lit.kind = Literal::Kind::Str;
    while (true) {
      if (pos_ >= text_.size())
        fail("unterminated string");
      char c = text_[pos_++];
      if (c == quote)
        break;
      if (c == '\n')
        fail("unterminated string");
      if (c == '\\') {
        if (pos_ >= text_.size())
          fail("unterminated string");
        c = text_[pos_++];
      }
      lit.str += c;
    }
    return lit;
  }

  Literal parseInt() {
    Literal lit;
    lit.kind = Literal::Kind::Int;
    bool negative = false;
    if (text_[pos_] == '-' || text_[pos_] == '+')
      negative = text_[pos_++] == '-';
    size_t start = pos_;
    uint64_t magnitude = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      unsigned digit = static_cast<unsigned>(text_[pos_++] - '0');
      if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / 10)
        lit.numOverflow = true;
      else
        magnitude = magnitude * 10 + digit;
    }
    if (pos_ == start)
      fail("expected a digit");
    // Python 2 wrote longs as "3L".
    if (pos_ < text_.size() && (text_[pos_] == 'L' || text_[pos_] == 'l'))
      ++pos_;
    if (magnitude > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      lit.numOverflow = true;
    if (!lit.numOverflow)
      lit.num = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
    return lit;
  }

  Literal parseSequence(int depth, char close, Literal::Kind kind) {
    ++pos_; // opening bracket
    Literal lit;
    lit.kind = kind;
    bool sawComma = false;
    while (!consume(close)) {
      if (!lit.items.empty() && !sawComma)
        fail(std::string("expected ',' or '") + close + "'");
      lit.items.push_back(parseValue(depth + 1));
      sawComma = consume(',');
    }
    // "(3)" is just 3 in Python; only "(3,)" is a tuple.
    if (kind == Literal::Kind::Tuple && lit.items.size() == 1 && !sawComma)
      return lit.items.front();
    return lit;
  }

  Literal parseDict(int depth) {
    ++pos_; // '{'
    Literal lit;
    lit.kind = Literal::Kind::Dict;
    bool sawComma = false;
    while (!consume('}')) {
      if (!lit.keys.empty() && !sawComma)
        fail("expected ',' or '}'");
      Literal key = parseValue(depth + 1);
      if (key.kind != Literal::Kind::Str)
        fail("dictionary key is not a string");
      if (!consume(':'))
        fail("expected ':'");
      lit.keys.push_back(key.str);
      lit.items.push_back(parseValue(depth + 1));
      sawComma = consume(',');
    }
    return lit;
  }

  const std::string &path_;
  std::string_view text_;
  size_t pos_ = 0;
};

/// The dtype a descr names, or an IOError saying why ember cannot load it.
DType dtypeOfDescr(const std::string &path, const Literal &descr) {
  if (descr.kind != Literal::Kind::Str)
    failRead(path, "unsupported dtype: structured or sub-array dtypes are not supported");
  const std::string &s = descr.str;
  char order = s.empty() ? '\0' : s[0];
  bool hasOrder = order == '<' || order == '>' || order == '|' || order == '=';
  std::string code = hasOrder ? s.substr(1) : s;
  if (code == "b1" || code == "?")
    return DType::Bool; // one byte: byte order does not matter
  struct {
    const char *code;
    DType dtype;
  } const known[] = {{"f4", DType::Float32},
                     {"f8", DType::Float64},
                     {"f2", DType::Float16},
                     {"i4", DType::Int32},
                     {"i8", DType::Int64}};
  for (const auto &k : known) {
    if (code != k.code)
      continue;
    if (order == '>')
      failRead(path, "big-endian dtype '" + s +
                         "' is not supported (save it little-endian, e.g. "
                         "a.astype(a.dtype.newbyteorder('<')))");
    if (order == '|')
      break; // '|' claims no byte order, which a multi-byte type needs
    return k.dtype;
  }
  failRead(path, "unsupported dtype '" + excerpt(s) +
                     "' (ember reads '<f4', '<f8', '<f2', '<i4', '<i8' and '|b1')");
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

/// Closes the FILE on every path out of readNpy.
struct FileCloser {
  std::FILE *file;
  ~FileCloser() {
    if (file)
      std::fclose(file);
  }
};

uint32_t readLE(const unsigned char *p, size_t n) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i)
    v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

} // namespace

void writeNpy(const std::string &path, DType dtype, const int64_t *shape, int rank,
              const void *data) {
  if (rank < 0)
    failWrite(path, "negative rank " + std::to_string(rank));
  if (dtype == DType::BFloat16)
    failWrite(path, "numpy has no bfloat16 dtype; save ember::cast(x, ember::kFloat32), or use "
                    "safetensors (BF16)");
  std::vector<int64_t> dims(shape, shape + rank);
  for (int64_t d : dims)
    if (d < 0)
      failWrite(path, "negative dimension in shape " + Shape::str(dims));
  int64_t dataBytes = 0;
  if (!byteCount(dims, dtypeSize(dtype), dataBytes))
    failWrite(path, "shape " + Shape::str(dims) + " is too large");

  // The same text np.save writes: sorted keys, spare room for growth, then
  // spaces and a newline so the data starts on a 64-byte boundary.
  std::string dict = "{'descr': '" + descrOf(dtype) +
                     "', 'fortran_order': False, 'shape': " + Shape::str(dims) + ", }";
  if (!dims.empty()) {
    size_t firstLen = std::to_string(dims[0]).size();
    dict.append(kGrowthAxisMaxDigits - std::min(firstLen, kGrowthAxisMaxDigits), ' ');
  }
  // Version 1.0 unless the header outgrows its 16-bit length (huge ranks).
  size_t textLen = dict.size() + 1; // + '\n'
  bool v1 = textLen + kAlign <= 0xffff;
  size_t prefixLen = kMagicLen + 2 + (v1 ? 2 : 4);
  size_t pad = kAlign - (prefixLen + textLen) % kAlign;
  size_t headerLen = textLen + pad;

  std::string header(kMagic, kMagicLen);
  header += static_cast<char>(v1 ? 1 : 2);
  header += '\0';
  for (size_t i = 0; i < (v1 ? 2u : 4u); ++i)
    header += static_cast<char>((headerLen >> (8 * i)) & 0xff);
  header += dict;
  header.append(pad, ' ');
  header += '\n';

  std::string_view pieces[] = {header, std::string_view(static_cast<const char *>(data),
                                                        static_cast<size_t>(dataBytes))};
  if (std::string why = support::writeFileWhole(path, pieces); !why.empty())
    failWrite(path, why);
}

NpyArray readNpy(const std::string &path) {
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    failRead(path, std::strerror(errno));
  FileCloser closer{file};

  struct stat st;
  if (::fstat(::fileno(file), &st) != 0)
    failRead(path, std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    failRead(path, "not a regular file");
  const uint64_t fileSize = static_cast<uint64_t>(st.st_size);

  // Reads exactly n bytes at the current position, or says what was missing.
  auto readExactly = [&](unsigned char *dst, size_t n, const char *what) {
    size_t got = std::fread(dst, 1, n, file);
    if (got == n)
      return;
    if (std::ferror(file))
      failRead(path, std::string("read error in ") + what + ": " + std::strerror(errno));
    failRead(path, std::string("file is truncated: ") + what + " needs " + std::to_string(n) +
                       " bytes, found " + std::to_string(got));
  };

  unsigned char prefix[12];
  if (fileSize == 0)
    failRead(path, "file is empty (not a .npy file)");
  bool magicOk = fileSize >= kMagicLen;
  if (magicOk) {
    readExactly(prefix, kMagicLen, "magic string");
    magicOk = std::memcmp(prefix, kMagic, kMagicLen) == 0;
  }
  if (!magicOk)
    failRead(path, "not a .npy file (bad magic string; expected \"\\x93NUMPY\")");
  readExactly(prefix + kMagicLen, 2, "format version");
  unsigned major = prefix[6], minor = prefix[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    failRead(path, "unsupported .npy format version " + std::to_string(major) + "." +
                       std::to_string(minor) + " (ember reads 1.0, 2.0 and 3.0)");
  size_t lenBytes = major == 1 ? 2 : 4;
  readExactly(prefix + 8, lenBytes, "header length");
  uint64_t headerLen = readLE(prefix + 8, lenBytes);
  uint64_t dataOffset = 8 + lenBytes + headerLen;
  if (dataOffset > fileSize)
    failRead(path, "file is truncated: header needs " + std::to_string(headerLen) +
                       " bytes, found " + std::to_string(fileSize - (8 + lenBytes)));
  std::string text(static_cast<size_t>(headerLen), '\0');
  readExactly(reinterpret_cast<unsigned char *>(text.data()), text.size(), "header");

  HeaderParser parser(path, text);
  Literal dict = parser.parseWhole();
  if (dict.kind != Literal::Kind::Dict)
    parser.fail("header is not a dictionary");
  const Literal *descr = nullptr, *fortran = nullptr, *shapeLit = nullptr;
  for (size_t i = 0; i < dict.keys.size(); ++i) {
    const std::string &key = dict.keys[i];
    const Literal **slot = key == "descr"           ? &descr
                           : key == "fortran_order" ? &fortran
                           : key == "shape"         ? &shapeLit
                                                    : nullptr;
    if (!slot)
      failRead(path, "malformed header: unexpected key '" + excerpt(key) + "'");
    *slot = &dict.items[i];
  }
  if (!descr || !fortran || !shapeLit)
    failRead(path, std::string("malformed header: missing key '") +
                       (!descr ? "descr" : !fortran ? "fortran_order" : "shape") + "'");

  NpyArray array;
  array.dtype = dtypeOfDescr(path, *descr);
  if (fortran->kind != Literal::Kind::Bool)
    failRead(path, "malformed header: fortran_order is not True or False");
  if (fortran->flag)
    failRead(path, "Fortran-ordered arrays (fortran_order: True) are not supported; "
                   "save a C-ordered array, e.g. np.save(path, np.ascontiguousarray(a))");
  if (shapeLit->kind != Literal::Kind::Tuple)
    failRead(path, "malformed header: shape is not a tuple");
  for (const Literal &dim : shapeLit->items) {
    if (dim.kind != Literal::Kind::Int)
      failRead(path, "malformed header: shape holds something other than integers");
    if (dim.numOverflow)
      failRead(path, "shape has a dimension too large for int64");
    array.shape.push_back(dim.num);
  }
  for (int64_t d : array.shape)
    if (d < 0)
      failRead(path, "invalid shape " + Shape::str(array.shape) + ": negative dimension");

  int64_t expected = 0;
  if (!byteCount(array.shape, dtypeSize(array.dtype), expected))
    failRead(path, "shape " + Shape::str(array.shape) + " is too large");
  // Checked before allocating, so a corrupt shape cannot demand terabytes.
  uint64_t available = fileSize - dataOffset;
  if (available < static_cast<uint64_t>(expected))
    failRead(path, "file is truncated: expected " + std::to_string(expected) +
                       " bytes of data, found " + std::to_string(available));
  array.data.resize(static_cast<size_t>(expected));
  if (expected > 0)
    readExactly(array.data.data(), array.data.size(), "array data");
  if (array.dtype == DType::Bool)
    for (unsigned char &b : array.data)
      b = b != 0; // any other byte would be an invalid C++ bool
  return array;
}

} // namespace ember::detail

//===----------------------------------------------------------------------===//
// Tensors in .npy files
//===----------------------------------------------------------------------===//

void ember::save_npy(const std::string &path, const Tensor &tensor) {
  Tensor host = tensor.cpu();
  detail::writeNpy(path, tensor.dtype(), tensor.shape().data(), tensor.rank(), host.data());
}

ember::Tensor ember::load_npy(const std::string &path) {
  detail::NpyArray array = detail::readNpy(path);
  if (array.shape.size() > static_cast<size_t>(kMaxRank))
    throw IOError(path + ": rank " + std::to_string(array.shape.size()) +
                  " is above ember's limit of " + std::to_string(kMaxRank));
  Shape shape;
  try { // numpy's shapes may hold more elements than ember's (empty ones)
    shape = Shape(std::span<const int64_t>(array.shape));
  } catch (const Error &e) {
    throw IOError(path + ": " + e.what());
  }
  Tensor out = Tensor::empty(shape, array.dtype, Device());
  std::copy(array.data.begin(), array.data.end(), static_cast<unsigned char *>(out.data()));
  return out;
}
