// The fixed lines of a send-pdf email, per language (the PDF's locale): the default subject and
// text, and the note the service adds. Same fallback as the document's words: language, else English.
// "{title}", "{sender}", "{where}" and "{service}" are replaced.

import { fill, wordsLanguage } from "./render/words";

interface MailTable {
  subject: string;
  text: string;
  note: string;
}

const MAIL: Record<string, MailTable> = {
  en: { subject: "{title} (PDF)", text: "Please find \u201c{title}\u201d attached as a PDF.", note: "Sent by {sender} from {where} with {service}. This note is added by the service; the text above is the sender's." },
  de: { subject: "{title} (PDF)", text: "Im Anhang finden Sie \u201e{title}\u201c als PDF.", note: "Gesendet von {sender} aus {where} mit {service}. Dieser Hinweis wird vom Dienst hinzugefügt; der Text darüber stammt vom Absender." },
  fr: { subject: "{title} (PDF)", text: "Veuillez trouver \u00ab {title} \u00bb en pièce jointe au format PDF.", note: "Envoyé par {sender} depuis {where} avec {service}. Cette note est ajoutée par le service ; le texte ci-dessus est celui de l’expéditeur." },
  es: { subject: "{title} (PDF)", text: "Adjunto encontrará \u00ab{title}\u00bb en PDF.", note: "Enviado por {sender} desde {where} con {service}. El servicio añade esta nota; el texto anterior es del remitente." },
  it: { subject: "{title} (PDF)", text: "In allegato trova \u00ab{title}\u00bb in formato PDF.", note: "Inviato da {sender} da {where} con {service}. Questa nota è aggiunta dal servizio; il testo sopra è del mittente." },
  pt: { subject: "{title} (PDF)", text: "Segue em anexo \u201c{title}\u201d em PDF.", note: "Enviado por {sender} a partir de {where} com {service}. Esta nota é adicionada pelo serviço; o texto acima é do remetente." },
  nl: { subject: "{title} (pdf)", text: "In de bijlage vindt u \u2018{title}\u2019 als pdf.", note: "Verzonden door {sender} vanuit {where} met {service}. Deze opmerking wordt door de dienst toegevoegd; de tekst hierboven is van de afzender." },
  pl: { subject: "{title} (PDF)", text: "W załączniku przesyłamy \u201e{title}\u201d w formacie PDF.", note: "Wysłane przez {sender} z {where} za pomocą {service}. Tę notę dodaje usługa; powyższy tekst pochodzi od nadawcy." },
  sv: { subject: "{title} (PDF)", text: "Bifogat finns \u201d{title}\u201d som PDF.", note: "Skickat av {sender} från {where} med {service}. Den här anteckningen läggs till av tjänsten; texten ovan är avsändarens." },
  ru: { subject: "{title} (PDF)", text: "Во вложении \u00ab{title}\u00bb в формате PDF.", note: "Отправлено пользователем {sender} из {where} через {service}. Эту пометку добавляет сервис; текст выше написан отправителем." },
  uk: { subject: "{title} (PDF)", text: "У вкладенні \u00ab{title}\u00bb у форматі PDF.", note: "Надіслано користувачем {sender} з {where} через {service}. Цю примітку додає сервіс; текст вище написав відправник." },
  tr: { subject: "{title} (PDF)", text: "\u201c{title}\u201d ekte PDF olarak gönderilmiştir.", note: "{sender} tarafından {where} üzerinden {service} ile gönderildi. Bu not hizmet tarafından eklenir; yukarıdaki metin gönderene aittir." },
  ar: { subject: "{title} (PDF)", text: "تجدون \u201c{title}\u201d مرفقًا بصيغة PDF.", note: "أرسله {sender} من {where} عبر {service}. تضيف الخدمة هذه الملاحظة؛ النص أعلاه من المرسل." },
  he: { subject: "{title} (PDF)", text: "מצורף \u201c{title}\u201d כקובץ PDF.", note: "נשלח על ידי {sender} מתוך {where} באמצעות {service}. הערה זו נוספת על ידי השירות; הטקסט שלמעלה הוא של השולח." },
  hi: { subject: "{title} (PDF)", text: "\u201c{title}\u201d PDF के रूप में संलग्न है।", note: "{sender} द्वारा {where} से {service} के माध्यम से भेजा गया। यह टिप्पणी सेवा द्वारा जोड़ी जाती है; ऊपर का पाठ प्रेषक का है।" },
  th: { subject: "{title} (PDF)", text: "แนบ \u201c{title}\u201d เป็นไฟล์ PDF มาพร้อมนี้", note: "ส่งโดย {sender} จาก {where} ผ่าน {service} บริการเป็นผู้เพิ่มหมายเหตุนี้ ข้อความด้านบนเป็นของผู้ส่ง" },
  ja: { subject: "{title}（PDF）", text: "\u300c{title}\u300dをPDFで添付します。", note: "{sender} が {where} から {service} で送信しました。この注記はサービスが追加したもので、上の本文は送信者によるものです。" },
  ko: { subject: "{title} (PDF)", text: "\u2018{title}\u2019을(를) PDF로 첨부합니다.", note: "{sender}님이 {where}에서 {service}(으)로 보냈습니다. 이 안내는 서비스가 추가한 것이며, 위의 내용은 보낸 사람이 작성했습니다." },
  "zh-Hans": { subject: "{title}（PDF）", text: "附件为 PDF 格式的\u201c{title}\u201d。", note: "由 {sender} 从 {where} 通过 {service} 发送。此说明由服务添加；以上内容由发件人撰写。" },
  "zh-Hant": { subject: "{title}（PDF）", text: "附件為 PDF 格式的\u300c{title}\u300d。", note: "由 {sender} 從 {where} 透過 {service} 傳送。此說明由服務加入；以上內容由寄件者撰寫。" },
};

/** The fixed lines of an email in the language of `locale`. */
export function mailWords(locale: string) {
  const t = MAIL[wordsLanguage(locale)] ?? MAIL.en;
  return {
    subject: (title: string) => fill(t.subject, { title }),
    text: (title: string) => fill(t.text, { title }),
    note: (sender: string, where: string, service: string) => `--\n${fill(t.note, { sender, where, service })}`,
  };
}
